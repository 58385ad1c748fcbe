package sieve

/*
#include "sieve.h"
*/
import "C"

import (
	"context"
	"runtime"
)

// Reranker scores how well documents answer a query with a cross-encoder (a
// sequence-classification model exported to ONNX), and classifies texts and
// text pairs with it (Classify). It is safe for concurrent use by many
// goroutines.
type Reranker struct {
	m      *model
	labels []string // the model's label names, by index
}

// RerankResult is one document of a ranking.
type RerankResult struct {
	Index int     // of the document in the slice given to Rerank
	Score float32 // as Score returns it
}

// NewReranker loads the cross-encoder in the folder path. A folder that holds
// an embedding model gives an error matching ErrWrongKind; a missing one,
// ErrNotFound.
func NewReranker(path string, opts ...Option) (*Reranker, error) {
	m, err := loadModel(path, KindReranker, opts)
	if err != nil {
		return nil, err
	}
	return rerankerOf(m)
}

// rerankerOf takes ownership of m, closing it on error. The label names
// are read once, here: they never change, and Classify and Labels then need
// no call into C per label (Labels not even an open model).
func rerankerOf(m *model) (*Reranker, error) {
	labels, err := modelLabels(m)
	if err != nil {
		m.h.close()
		return nil, err
	}
	return &Reranker{m: m, labels: labels}, nil
}

// Info describes the model. It stays available after Close.
func (r *Reranker) Info() ModelInfo { return r.m.publicInfo() }

// Score returns one score per document, in input order: the model's
// relevance of the document to the query, after the activation its
// configuration asks for (a sigmoid for a single label), as `sieve rerank`
// reports it. ctx is checked before the call only.
func (r *Reranker) Score(ctx context.Context, query string, docs []string) ([]float32, error) {
	ptr, err := r.m.h.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer r.m.h.release()
	var pinner runtime.Pinner
	defer pinner.Unpin()
	q := pinText(&pinner, query)
	cdocs := pinTexts(&pinner, docs)
	scores := make([]float32, len(docs))
	err = statusError(C.sieve_score(ptr, q, first(cdocs), C.size_t(len(cdocs)),
		(*C.float)(first(scores)), C.size_t(len(scores))))
	if err != nil {
		return nil, err
	}
	return scores, nil
}

// Rerank returns the topK best documents for the query, best first (all of
// them when topK <= 0); documents with equal scores keep their input order.
// ctx is checked before the call only.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string, topK int) ([]RerankResult, error) {
	ptr, err := r.m.h.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer r.m.h.release()
	if topK <= 0 || topK > len(docs) {
		topK = len(docs)
	}
	var pinner runtime.Pinner
	defer pinner.Unpin()
	q := pinText(&pinner, query)
	cdocs := pinTexts(&pinner, docs)
	results := make([]C.sieve_rerank_result, topK)
	var n C.size_t
	// topK is never 0 here unless docs is empty, where C's "0: all" agrees.
	err = statusError(C.sieve_rerank(ptr, q, first(cdocs), C.size_t(len(cdocs)), C.size_t(topK),
		first(results), C.size_t(len(results)), &n))
	if err != nil {
		return nil, err
	}
	out := make([]RerankResult, int(n))
	for i := range out {
		out[i] = RerankResult{Index: int(results[i].index), Score: float32(results[i].score)}
	}
	return out, nil
}

// Tokenizer returns the model's own tokenizer (with the model's truncation).
// It is closed with the Reranker.
func (r *Reranker) Tokenizer() *Tokenizer { return r.m.tokenizer() }

// Tokenize encodes the (query, document) pair as the model sees it.
func (r *Reranker) Tokenize(query, doc string, opts ...TokenizeOption) (*Encoding, error) {
	return r.m.tokenizer().TokenizePair(query, doc, opts...)
}

// Close releases the model. It waits for calls in flight; later calls return
// an error wrapping ErrClosed. Closing again does nothing.
func (r *Reranker) Close() error {
	r.m.h.close()
	return nil
}
