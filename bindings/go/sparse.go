package sieve

/*
#include "sieve.h"
*/
import "C"

import (
	"context"
	"math"
	"runtime"
	"unsafe"
)

// SparseVector is a learned sparse embedding (SPLADE): the non-zero weights
// of a sparse model's vocabulary entries. Indices are token ids, strictly
// ascending (each below the model's Dimension); Values are their weights, each
// above 0 (and above WithMinWeight's floor). The dot product of two vectors
// is their similarity, as sentence-transformers' SparseEncoder scores them.
type SparseVector struct {
	Indices []uint32
	Values  []float32
}

// SparseOption prunes the vectors EmbedSparse returns.
type SparseOption func(*sparseConfig)

type sparseConfig struct {
	topK      int
	minWeight float32
	err       error // the first invalid option
}

// WithTopK keeps the k largest weights of each vector (of equal weights, the
// smaller token id), still by ascending id; 0 (the default) keeps all.
func WithTopK(k int) SparseOption {
	return func(c *sparseConfig) {
		if k < 0 && c.err == nil {
			c.err = invalidArgument("WithTopK must not be negative, got %d", k)
		}
		c.topK = k
	}
}

// WithMinWeight drops weights at or below w (0 or more); 0 (the default)
// keeps every non-zero weight. It applies before WithTopK.
func WithMinWeight(w float32) SparseOption {
	return func(c *sparseConfig) {
		if !(w >= 0) && c.err == nil { // NaN fails the comparison too
			c.err = invalidArgument("WithMinWeight must be 0 or more, got %v", w)
		}
		c.minWeight = w
	}
}

// SparseEmbedder turns texts into learned sparse vectors with a sparse
// (SPLADE) model: a fill-mask transformer with sentence-transformers'
// SpladePooling, exported with `sieve-export export --task sparse`. It is
// safe for concurrent use by many goroutines.
type SparseEmbedder struct {
	m *model
}

// NewSparseEmbedder loads the sparse (SPLADE) model in the folder path. A
// folder that holds a dense embedding model or a cross-encoder gives an error
// matching ErrWrongKind; a missing one, ErrNotFound. WithNormalize(true),
// WithPooling and WithDimensions do not apply to a sparse model: loading with
// them fails with ErrInvalidArgument.
func NewSparseEmbedder(path string, opts ...Option) (*SparseEmbedder, error) {
	m, err := loadModel(path, KindSparse, opts)
	if err != nil {
		return nil, err
	}
	return &SparseEmbedder{m: m}, nil
}

// Dimension returns the model's vocabulary size: every index of its vectors
// is below it.
func (e *SparseEmbedder) Dimension() int { return e.m.info.Dimension }

// Info describes the model. It stays available after Close.
func (e *SparseEmbedder) Info() ModelInfo { return e.m.publicInfo() }

// EmbedSparse returns one sparse vector per text, in input order, pruned by
// opts (by default every non-zero weight is kept). The model batches the
// texts itself, so pass many texts in one call. ctx is checked before the
// call only.
//
// An invalid text (not UTF-8, unless WithReplaceInvalidUTF8) gives an *Error
// with Code CodeInvalidInput and its index in InputIndex.
func (e *SparseEmbedder) EmbedSparse(ctx context.Context, texts []string, opts ...SparseOption) ([]SparseVector, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var cfg sparseConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	ptr, err := e.m.h.acquire()
	if err != nil {
		return nil, err
	}
	defer e.m.h.release()
	var copts C.sieve_sparse_options
	C.sieve_sparse_options_init(&copts, C.size_t(unsafe.Sizeof(copts)))
	copts.top_k = C.size_t(cfg.topK)
	copts.min_weight = C.float(cfg.minWeight)

	var pinner runtime.Pinner
	defer pinner.Unpin()
	ctexts := pinTexts(&pinner, texts)
	var list *C.sieve_sparse_embeddings
	if err := statusError(C.sieve_embed_sparse(ptr, first(ctexts), C.size_t(len(ctexts)), &copts, &list)); err != nil {
		return nil, err
	}
	defer C.sieve_sparse_embeddings_destroy(list)
	return copySparse(list, len(texts))
}

// copySparse copies the C list's vectors into Go memory: one allocation for
// every index and one for every value, each vector's slices capped so that
// appending to one cannot overwrite the next.
func copySparse(list *C.sieve_sparse_embeddings, n int) ([]SparseVector, error) {
	if got := int(C.sieve_sparse_embeddings_count(list)); got != n {
		return nil, &Error{Code: CodeInternal, Message: "sieve_embed_sparse gave a vector count other than the texts'",
			InputIndex: -1}
	}
	type view struct {
		ids     *C.uint32_t
		weights *C.float
		size    C.size_t
	}
	views := make([]view, n)
	total := 0
	for i := range views {
		v := &views[i]
		if err := statusError(C.sieve_sparse_embeddings_get(list, C.size_t(i), &v.ids, &v.weights, &v.size)); err != nil {
			return nil, err
		}
		if uint64(v.size) > math.MaxInt32 {
			return nil, &Error{Code: CodeInternal, Message: "a sparse vector larger than any vocabulary", InputIndex: -1}
		}
		total += int(v.size)
	}
	indices := make([]uint32, total)
	values := make([]float32, total)
	out := make([]SparseVector, n)
	at := 0
	for i, v := range views {
		size := int(v.size)
		vec := SparseVector{Indices: indices[at : at+size : at+size], Values: values[at : at+size : at+size]}
		if size > 0 {
			copy(vec.Indices, unsafe.Slice((*uint32)(unsafe.Pointer(v.ids)), size))
			copy(vec.Values, unsafe.Slice((*float32)(unsafe.Pointer(v.weights)), size))
		}
		out[i] = vec
		at += size
	}
	return out, nil
}

// Tokenizer returns the model's own tokenizer (with the model's truncation).
// It is closed with the SparseEmbedder.
func (e *SparseEmbedder) Tokenizer() *Tokenizer { return e.m.tokenizer() }

// Tokenize encodes text with the model's tokenizer, as the model sees it.
func (e *SparseEmbedder) Tokenize(text string, opts ...TokenizeOption) (*Encoding, error) {
	return e.m.tokenizer().Tokenize(text, opts...)
}

// Close releases the model. It waits for calls in flight; later calls return
// an error wrapping ErrClosed. Closing again does nothing.
func (e *SparseEmbedder) Close() error {
	e.m.h.close()
	return nil
}
