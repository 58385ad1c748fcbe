package sieve

/*
#include <stdlib.h>
#include "sieve.h"
*/
import "C"

import "unsafe"

// Option configures how a model is loaded (NewEmbedder, NewReranker, and a
// Registry's models through WithModelOptions). Options not given keep the
// library's defaults, most of which come from the model folder.
type Option func(*config)

// config holds the options given; zero values and nil mean "not given",
// which leaves the library's default in place.
type config struct {
	threads     int
	providers   []string
	strict      bool
	normalize   *bool
	pooling     string
	maxLength   int
	batchSize   int
	dimensions  int
	promptName  *string
	replaceUTF8 bool
	err         error // the first invalid option, reported when loading
}

func (c *config) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

func nonNegative(c *config, name string, n int) bool {
	if n < 0 {
		c.fail(invalidArgument("%s must not be negative, got %d", name, n))
		return false
	}
	return true
}

// WithThreads sets the ONNX Runtime intra-op threads of the model; 0 (the
// default) means one per physical core. The library refuses more than 4 per
// hardware thread of the machine.
func WithThreads(n int) Option {
	return func(c *config) {
		if !nonNegative(c, "WithThreads", n) {
			return
		}
		// The C field is 32 bits: a larger count must not wrap into a small one.
		if int64(n) > int64(^uint32(0)>>1) {
			c.fail(invalidArgument("WithThreads: %d threads is more than any machine has", n))
			return
		}
		c.threads = n
	}
}

// WithProviders sets the execution providers to try, in priority order, as on
// the command line: "cuda", "cuda:device_id=1", "tensorrt", ... CPU always
// ends the list. Providers the ONNX Runtime lacks are skipped unless
// WithStrictProviders is given.
func WithProviders(providers ...string) Option {
	return func(c *config) { c.providers = append([]string(nil), providers...) }
}

// WithStrictProviders makes loading fail when a provider of WithProviders is
// unavailable, instead of falling back to the next one.
func WithStrictProviders() Option {
	return func(c *config) { c.strict = true }
}

// WithNormalize turns L2 normalization of embeddings on or off, overriding
// the model folder (embedding models only).
func WithNormalize(normalize bool) Option {
	return func(c *config) { c.normalize = &normalize }
}

// WithPooling overrides the model folder's pooling: "mean", "cls", "max",
// "mean_sqrt_len" or "lasttoken" (embedding models only).
func WithPooling(pooling string) Option {
	return func(c *config) { c.pooling = pooling }
}

// WithMaxLength truncates each input (or query-document pair) to n tokens;
// 0 (the default) keeps the model's maximum.
func WithMaxLength(n int) Option {
	return func(c *config) {
		if nonNegative(c, "WithMaxLength", n) {
			c.maxLength = n
		}
	}
}

// WithBatchSize sets how many inputs go into one ONNX Runtime run (default
// 32; 0 keeps it). It changes speed and memory, and results only by float
// rounding (padding differs between batches).
func WithBatchSize(n int) Option {
	return func(c *config) {
		if nonNegative(c, "WithBatchSize", n) {
			c.batchSize = n
		}
	}
}

// WithDimensions keeps the first n dimensions of each embedding (Matryoshka
// truncation, normalized again when normalizing); 0 keeps all.
func WithDimensions(n int) Option {
	return func(c *config) {
		if nonNegative(c, "WithDimensions", n) {
			c.dimensions = n
		}
	}
}

// WithPromptName selects a prompt of the model folder's
// config_sentence_transformers.json ("query", "passage", ...), put before
// every input; by default the folder's default prompt, if any, is used.
func WithPromptName(name string) Option {
	return func(c *config) { c.promptName = &name }
}

// WithReplaceInvalidUTF8 replaces invalid UTF-8 in texts with U+FFFD instead
// of failing with ErrInvalidInput.
func WithReplaceInvalidUTF8() Option {
	return func(c *config) { c.replaceUTF8 = true }
}

// cOptions is a sieve_model_options in C memory with the C strings it points
// to. It lives in C memory because a Registry's options point at it, and Go
// memory passed to C may not hold Go pointers.
type cOptions struct {
	opts    *C.sieve_model_options
	strings []*C.char
	array   **C.char
}

func (c *config) toC() (_ *cOptions, err error) {
	if c.err != nil {
		return nil, c.err
	}
	out := &cOptions{opts: (*C.sieve_model_options)(C.calloc(1, C.sizeof_sieve_model_options))}
	defer func() {
		if err != nil {
			out.free()
		}
	}()
	o := out.opts
	C.sieve_model_options_init(o, C.size_t(unsafe.Sizeof(*o)))
	cstr := func(s, what string) (*C.char, error) {
		p, err := cString(s, what)
		if err == nil {
			out.strings = append(out.strings, p)
		}
		return p, err
	}
	o.intra_op_threads = C.int32_t(c.threads)
	if len(c.providers) > 0 {
		out.array = (**C.char)(C.calloc(C.size_t(len(c.providers)), C.size_t(unsafe.Sizeof((*C.char)(nil)))))
		slots := unsafe.Slice(out.array, len(c.providers))
		for i, p := range c.providers {
			if slots[i], err = cstr(p, "provider"); err != nil {
				return nil, err
			}
		}
		o.providers = out.array
		o.provider_count = C.size_t(len(c.providers))
	}
	if c.strict {
		o.strict_providers = 1
	}
	if c.normalize != nil {
		o.normalize = 0
		if *c.normalize {
			o.normalize = 1
		}
	}
	if c.pooling != "" {
		if o.pooling, err = cstr(c.pooling, "pooling"); err != nil {
			return nil, err
		}
	}
	o.max_length = C.size_t(c.maxLength)
	if c.batchSize > 0 {
		o.batch_size = C.size_t(c.batchSize)
	}
	o.dimensions = C.size_t(c.dimensions)
	if c.promptName != nil {
		if o.prompt_name, err = cstr(*c.promptName, "prompt name"); err != nil {
			return nil, err
		}
	}
	if c.replaceUTF8 {
		o.replace_invalid_utf8 = 1
	}
	return out, nil
}

func (o *cOptions) free() {
	for _, s := range o.strings {
		C.free(unsafe.Pointer(s))
	}
	C.free(unsafe.Pointer(o.array))
	C.free(unsafe.Pointer(o.opts))
}
