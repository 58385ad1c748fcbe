package sieve

/*
#include "sieve.h"
*/
import "C"

import (
	"cmp"
	"context"
	"runtime"
	"slices"
)

// LabelScore is one label's score for one input of Classify or ClassifyPairs.
type LabelScore struct {
	Label string
	Score float32
}

// ClassifyOption changes how Classify and ClassifyPairs score.
type ClassifyOption func(*classifyConfig)

type classifyConfig struct{ raw bool }

// WithRawScores reports the model's logits instead of probabilities.
func WithRawScores() ClassifyOption {
	return func(c *classifyConfig) { c.raw = true }
}

// Labels returns the model's label names in the order of its outputs
// (config.json's id2label, "LABEL_<i>" where it has none). It stays
// available after Close.
func (r *Reranker) Labels() []string { return slices.Clone(r.labels) }

// Classify scores every label of the model for each text, as
// `sieve classify` does: one slice per text, in input order, holding every
// label sorted best first (labels with equal scores keep the model's label
// order, so the first is the prediction). Scores are probabilities (the
// softmax, or for multi-label and one-label models the sigmoid, as the
// model's problem_type says) unless WithRawScores is given. ctx is checked
// before the call only.
func (r *Reranker) Classify(ctx context.Context, texts []string, opts ...ClassifyOption) ([][]LabelScore, error) {
	return r.classify(ctx, texts, nil, opts)
}

// ClassifyPairs is Classify for inputs of two texts each, such as an NLI
// premise and hypothesis (`sieve classify --pairs`).
func (r *Reranker) ClassifyPairs(ctx context.Context, pairs [][2]string, opts ...ClassifyOption) ([][]LabelScore, error) {
	firsts := make([]string, len(pairs))
	seconds := make([]string, len(pairs))
	for i, p := range pairs {
		firsts[i], seconds[i] = p[0], p[1]
	}
	return r.classify(ctx, firsts, seconds, opts)
}

// classify classifies texts, or the pairs (texts[i], seconds[i]) when
// seconds is not nil.
func (r *Reranker) classify(ctx context.Context, texts, seconds []string, opts []ClassifyOption) ([][]LabelScore, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var cfg classifyConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	ptr, err := r.m.h.acquire()
	if err != nil {
		return nil, err
	}
	defer r.m.h.release()
	var pinner runtime.Pinner
	defer pinner.Unpin()
	ctexts := pinTexts(&pinner, texts)
	// With no inputs, nil pairs and nil texts ask the same of C.
	cseconds := pinTexts(&pinner, seconds)
	var raw C.int32_t
	if cfg.raw {
		raw = 1
	}
	n := len(r.labels)
	scores := make([]float32, len(texts)*n)
	err = statusError(C.sieve_classify(ptr, first(ctexts), first(cseconds), C.size_t(len(ctexts)), raw,
		(*C.float)(first(scores)), C.size_t(len(scores))))
	if err != nil {
		return nil, err
	}
	all := make([]LabelScore, len(scores))
	out := make([][]LabelScore, len(texts))
	for i := range out {
		// Capped, so that appending to one input's slice cannot overwrite the next's.
		row := all[i*n : (i+1)*n : (i+1)*n]
		for j := range row {
			row[j] = LabelScore{Label: r.labels[j], Score: scores[i*n+j]}
		}
		// cmp.Compare orders NaN first, so NaN ends up last, as the command line ranks it.
		slices.SortStableFunc(row, func(a, b LabelScore) int { return cmp.Compare(b.Score, a.Score) })
		out[i] = row
	}
	return out, nil
}

// modelLabels reads the label names of a reranker's model.
func modelLabels(m *model) ([]string, error) {
	ptr, err := m.h.acquire()
	if err != nil {
		return nil, err
	}
	defer m.h.release()
	if m.info.Kind == KindMultiVector {
		return nil, nil // a ColBERT model scores by MaxSim: it has no labels
	}
	labels := make([]string, m.info.Dimension)
	for i := range labels {
		var name *C.char
		if err := statusError(C.sieve_model_label(ptr, C.size_t(i), &name)); err != nil {
			return nil, err
		}
		labels[i] = C.GoString(name)
	}
	return labels, nil
}
