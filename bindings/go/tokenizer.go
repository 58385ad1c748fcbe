package sieve

/*
#include <stdlib.h>
#include "sieve.h"
*/
import "C"

import (
	"os"
	"path/filepath"
	"runtime"
	"unsafe"
)

// Tokenizer encodes text into token ids as Hugging Face's tokenizers do, from
// a tokenizer.json. It is safe for concurrent use by many goroutines.
type Tokenizer struct {
	// acquire returns the C tokenizer and the function that ends its use:
	// either the Tokenizer's own handle or its model's, which owns it.
	acquire func() (*C.sieve_tokenizer, func(), error)
	own     *handle[*C.sieve_tokenizer] // nil for a model's tokenizer
}

// Encoding is a tokenized text (or pair of texts). All slices have one entry
// per token.
type Encoding struct {
	IDs               []uint32
	TypeIDs           []uint32 // 0 for the first text, 1 for the pair's second
	AttentionMask     []uint8  // 0 for padding
	SpecialTokensMask []uint8  // 1 for added tokens ([CLS], [SEP], padding)
	// Offsets are byte offsets [Begin, End) of each token in its own text
	// (the first or the second of a pair: see TypeIDs), so text[o.Begin:o.End]
	// is the token's text; special tokens have empty offsets.
	Offsets []Offset
}

// Offset is a half-open byte range of a text.
type Offset struct{ Begin, End int }

// Len returns the number of tokens.
func (e *Encoding) Len() int { return len(e.IDs) }

// TokenizeOption changes how a text is encoded.
type TokenizeOption func(*tokenizeConfig)

type tokenizeConfig struct{ noSpecial bool }

// WithoutSpecialTokens leaves out the tokens the tokenizer's post-processor
// adds ([CLS], [SEP], ...).
func WithoutSpecialTokens() TokenizeOption {
	return func(c *tokenizeConfig) { c.noSpecial = true }
}

// LoadTokenizer loads a Hugging Face tokenizer.json, given as the file or as
// a model folder that holds it. The tokenizer applies the file's own
// truncation and padding, as Tokenizer.from_file(...).encode() does.
func LoadTokenizer(path string) (*Tokenizer, error) {
	if err := abiCheck(); err != nil {
		return nil, err
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "tokenizer.json")
	}
	cPath, err := cString(path, "tokenizer path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cPath))
	var ptr *C.sieve_tokenizer
	if err := statusError(C.sieve_tokenizer_load(cPath, &ptr)); err != nil {
		return nil, err
	}
	h := newHandle(ptr, destroyTokenizer, "Tokenizer "+path)
	return &Tokenizer{
		acquire: func() (*C.sieve_tokenizer, func(), error) {
			p, err := h.acquire()
			if err != nil {
				return nil, nil, err
			}
			return p, h.release, nil
		},
		own: h,
	}, nil
}

func destroyTokenizer(p *C.sieve_tokenizer) { C.sieve_tokenizer_destroy(p) }

// Tokenize encodes text, with special tokens unless WithoutSpecialTokens.
func (t *Tokenizer) Tokenize(text string, opts ...TokenizeOption) (*Encoding, error) {
	return t.encode(text, nil, opts)
}

// TokenizePair encodes the pair (text, pair), as a cross-encoder's input.
func (t *Tokenizer) TokenizePair(text, pair string, opts ...TokenizeOption) (*Encoding, error) {
	return t.encode(text, &pair, opts)
}

func (t *Tokenizer) encode(text string, pair *string, opts []TokenizeOption) (*Encoding, error) {
	var cfg tokenizeConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	ptr, release, err := t.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	var pinner runtime.Pinner
	defer pinner.Unpin()
	ctext := pinText(&pinner, text)
	var cpair *C.sieve_text
	if pair != nil {
		// Go memory holding a pinned Go pointer may be passed to C.
		p := pinText(&pinner, *pair)
		cpair = &p
	}
	special := C.int32_t(1)
	if cfg.noSpecial {
		special = 0
	}
	var enc *C.sieve_encoding
	if err := statusError(C.sieve_tokenize(ptr, ctext, cpair, special, &enc)); err != nil {
		return nil, err
	}
	defer C.sieve_encoding_destroy(enc)
	return copyEncoding(enc), nil
}

// copyEncoding copies a C encoding into Go memory, so that it can be
// destroyed at once.
func copyEncoding(enc *C.sieve_encoding) *Encoding {
	n := int(C.sieve_encoding_size(enc))
	out := &Encoding{
		IDs:               cSlice((*uint32)(unsafe.Pointer(C.sieve_encoding_ids(enc))), n),
		TypeIDs:           cSlice((*uint32)(unsafe.Pointer(C.sieve_encoding_type_ids(enc))), n),
		AttentionMask:     cSlice((*uint8)(unsafe.Pointer(C.sieve_encoding_attention_mask(enc))), n),
		SpecialTokensMask: cSlice((*uint8)(unsafe.Pointer(C.sieve_encoding_special_tokens_mask(enc))), n),
		Offsets:           make([]Offset, n),
	}
	if n > 0 {
		offsets := unsafe.Slice((*uint32)(unsafe.Pointer(C.sieve_encoding_offsets(enc))), 2*n)
		for i := range out.Offsets {
			out.Offsets[i] = Offset{Begin: int(offsets[2*i]), End: int(offsets[2*i+1])}
		}
	}
	return out
}

// cSlice copies n elements of a C array into a new Go slice.
func cSlice[T any](p *T, n int) []T {
	out := make([]T, n)
	if n > 0 {
		copy(out, unsafe.Slice(p, n))
	}
	return out
}

// Decode turns token ids back into text through the tokenizer's decoder,
// leaving out special tokens when skipSpecialTokens is set.
func (t *Tokenizer) Decode(ids []uint32, skipSpecialTokens bool) (string, error) {
	ptr, release, err := t.acquire()
	if err != nil {
		return "", err
	}
	defer release()
	skip := C.int32_t(0)
	if skipSpecialTokens {
		skip = 1
	}
	var out *C.char
	var size C.size_t
	// ids is Go memory without pointers, so it may be passed as it is.
	err = statusError(C.sieve_tokenizer_decode(ptr, (*C.uint32_t)(unsafe.Pointer(first(ids))),
		C.size_t(len(ids)), skip, &out, &size))
	if err != nil {
		return "", err
	}
	defer C.sieve_string_free(out)
	return C.GoStringN(out, C.int(size)), nil
}

// IDToToken returns the vocabulary entry of id.
func (t *Tokenizer) IDToToken(id uint32) (string, error) {
	ptr, release, err := t.acquire()
	if err != nil {
		return "", err
	}
	defer release()
	var token C.sieve_text
	if err := statusError(C.sieve_tokenizer_id_to_token(ptr, C.uint32_t(id), &token)); err != nil {
		return "", err
	}
	// The token points into the tokenizer: copy it before releasing it.
	return C.GoStringN(token.data, C.int(token.size)), nil
}

// VocabSize returns the size of the vocabulary, or 0 once closed.
func (t *Tokenizer) VocabSize() int {
	ptr, release, err := t.acquire()
	if err != nil {
		return 0
	}
	defer release()
	return int(C.sieve_tokenizer_vocab_size(ptr))
}

// Close releases a tokenizer of LoadTokenizer, waiting for calls in flight;
// later calls return an error wrapping ErrClosed. On a model's tokenizer it
// does nothing: that one is closed with its model.
func (t *Tokenizer) Close() error {
	if t.own != nil {
		t.own.close()
	}
	return nil
}
