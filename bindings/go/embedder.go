package sieve

/*
#include "sieve.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
)

// Embedder turns texts into vectors with an embedding model (a
// sentence-transformers folder exported to ONNX). It is safe for concurrent
// use by many goroutines.
type Embedder struct {
	m *model
}

// NewEmbedder loads the embedding model in the folder path (model.onnx or
// onnx/model.onnx, tokenizer.json, and the sentence-transformers files). A
// folder that holds a cross-encoder or a sparse model (NewSparseEmbedder)
// gives an error matching ErrWrongKind; a missing one, ErrNotFound.
func NewEmbedder(path string, opts ...Option) (*Embedder, error) {
	m, err := loadModel(path, KindEmbedding, opts)
	if err != nil {
		return nil, err
	}
	return &Embedder{m: m}, nil
}

// Dimension returns the length of the vectors Embed returns.
func (e *Embedder) Dimension() int { return e.m.info.Dimension }

// Info describes the model. It stays available after Close.
func (e *Embedder) Info() ModelInfo { return e.m.publicInfo() }

// Embed returns one vector per text, in input order. The model batches the
// texts itself (WithBatchSize texts per ONNX Runtime run, grouped by length),
// so pass many texts in one call rather than one call per text.
//
// ctx is checked before the call only: a call into the model cannot be
// interrupted. For a large slice, EmbedBatch checks ctx between chunks.
//
// An invalid text (not UTF-8, unless WithReplaceInvalidUTF8) gives an *Error
// with Code CodeInvalidInput and its index in InputIndex.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ptr, err := e.m.h.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer e.m.h.release()
	dim := e.m.info.Dimension
	flat := make([]float32, len(texts)*dim)
	if err := embedInto(ptr, texts, flat); err != nil {
		return nil, err
	}
	return rows(flat, len(texts), dim), nil
}

// embedInto embeds texts into out, which holds len(texts) rows.
func embedInto(ptr *C.sieve_model, texts []string, out []float32) error {
	var pinner runtime.Pinner
	defer pinner.Unpin()
	ctexts := pinTexts(&pinner, texts)
	return statusError(C.sieve_embed(ptr, first(ctexts), C.size_t(len(ctexts)),
		(*C.float)(first(out)), C.size_t(len(out))))
}

// rows splits a row-major matrix into its rows, without copying. Each row's
// capacity ends with it, so appending to one cannot overwrite the next.
func rows(flat []float32, n, dim int) [][]float32 {
	out := make([][]float32, n)
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return out
}

// DefaultChunkSize is the number of texts per Embed call of EmbedBatch and
// EmbedChunks when they are given a chunk size of 0 or less.
const DefaultChunkSize = 1024

// EmbedBatch embeds a large slice of texts in chunks of chunkSize texts (one
// Embed call each; DefaultChunkSize when chunkSize <= 0), checking ctx
// between chunks, and returns all vectors in input order. On an error it
// returns no vectors; an *Error's InputIndex is then the index in texts.
func (e *Embedder) EmbedBatch(ctx context.Context, texts []string, chunkSize int) ([][]float32, error) {
	// One allocation for every vector, as Embed does.
	dim := e.m.info.Dimension
	flat := make([]float32, len(texts)*dim)
	err := e.embedChunks(ctx, texts, chunkSize, func(start int, chunk []string) error {
		return e.embedChunk(chunk, start, flat[start*dim:(start+len(chunk))*dim])
	})
	if err != nil {
		return nil, err
	}
	return rows(flat, len(texts), dim), nil
}

// EmbedChunks embeds texts in chunks of chunkSize texts (DefaultChunkSize
// when chunkSize <= 0) and calls fn with each chunk's vectors, in order,
// start being the index in texts of the chunk's first text. Use it to stream
// vectors of a corpus too large to hold, or to report progress. It stops at
// the first error, from a chunk or from fn, and returns it; ctx is checked
// before each chunk.
func (e *Embedder) EmbedChunks(ctx context.Context, texts []string, chunkSize int,
	fn func(start int, vectors [][]float32) error) error {
	dim := e.m.info.Dimension
	return e.embedChunks(ctx, texts, chunkSize, func(start int, chunk []string) error {
		flat := make([]float32, len(chunk)*dim)
		if err := e.embedChunk(chunk, start, flat); err != nil {
			return err
		}
		return fn(start, rows(flat, len(chunk), dim))
	})
}

func (e *Embedder) embedChunks(ctx context.Context, texts []string, chunkSize int,
	each func(start int, chunk []string) error) error {
	if len(texts) == 0 {
		// Nothing to embed, but a cancelled context or a closed Embedder
		// still say so, as in Embed.
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := e.m.h.acquire(); err != nil {
			return err
		}
		e.m.h.release()
		return nil
	}
	if chunkSize <= 0 {
		chunkSize = DefaultChunkSize
	}
	for start := 0; start < len(texts); start += chunkSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := each(start, texts[start:min(start+chunkSize, len(texts))]); err != nil {
			return err
		}
	}
	return nil
}

// embedChunk embeds one chunk into out; start is its offset in the caller's
// slice, added to an error's InputIndex so that it names the caller's text
// (the library's message counts from the chunk's start, so it says which
// chunk).
func (e *Embedder) embedChunk(chunk []string, start int, out []float32) error {
	ptr, err := e.m.h.acquire()
	if err != nil {
		return err
	}
	defer e.m.h.release()
	err = embedInto(ptr, chunk, out)
	var se *Error
	if errors.As(err, &se) && se.InputIndex >= 0 {
		se.InputIndex += start
		se.Message = fmt.Sprintf("in texts[%d:%d]: %s", start, start+len(chunk), se.Message)
	}
	return err
}

// Tokenizer returns the model's own tokenizer (with the model's truncation).
// It is closed with the Embedder.
func (e *Embedder) Tokenizer() *Tokenizer { return e.m.tokenizer() }

// Tokenize encodes text with the model's tokenizer, as the model sees it.
func (e *Embedder) Tokenize(text string, opts ...TokenizeOption) (*Encoding, error) {
	return e.m.tokenizer().Tokenize(text, opts...)
}

// Close releases the model. It waits for calls in flight; later calls return
// an error wrapping ErrClosed. Closing again does nothing.
func (e *Embedder) Close() error {
	e.m.h.close()
	return nil
}
