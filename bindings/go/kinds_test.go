package sieve

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Every handle on every kind of model: the handle that serves a kind opens it and answers; any other refuses it
// with ErrWrongKind, naming the kind the folder holds and the handle that opens it.
func TestEveryHandleServesOrRefusesEveryKind(t *testing.T) {
	fixture := func(name string) string {
		return requireDir(t, filepath.Join(fixturesDir(t), name), "fixture "+name)
	}
	kinds := []struct {
		folder string
		kind   Kind
		noun   string
		serves string // the handle that opens it
	}{
		{tinyEmbedder(t), KindEmbedding, "dense embedding model", "Embedder"},
		{spladeTiny(t), KindSparse, "sparse (SPLADE)", "SparseEmbedder"},
		{fixture("colbert-tiny"), KindMultiVector, "late-interaction (ColBERT)", "Reranker"},
		{fixture("bge-m3-tiny"), KindEmbedding, "dense embedding model", "Embedder"},
		{fixture("cross-encoder-tiny-3labels"), KindReranker, "reranker", "Reranker"},
	}
	ctx := context.Background()
	open := map[string]func(string) (int, error){
		"Embedder": func(folder string) (int, error) {
			e, err := NewEmbedder(folder)
			if err != nil {
				return 0, err
			}
			defer e.Close()
			got, err := e.Embed(ctx, []string{"x"})
			return len(got), err
		},
		"SparseEmbedder": func(folder string) (int, error) {
			e, err := NewSparseEmbedder(folder)
			if err != nil {
				return 0, err
			}
			defer e.Close()
			got, err := e.EmbedSparse(ctx, []string{"x"})
			return len(got), err
		},
		"Reranker": func(folder string) (int, error) {
			r, err := NewReranker(folder)
			if err != nil {
				return 0, err
			}
			defer r.Close()
			got, err := r.Rerank(ctx, "q", []string{"d"}, 0)
			return len(got), err
		},
	}
	for _, k := range kinds {
		for handle, try := range open {
			n, err := try(k.folder)
			if handle == k.serves {
				if err != nil || n != 1 {
					t.Errorf("%s on %s: %d results, %v", handle, k.folder, n, err)
				}
				continue
			}
			se := asError(t, err, CodeWrongKind)
			if !strings.Contains(se.Message, k.noun) || !strings.Contains(se.Message, "open it as a "+k.serves) {
				t.Errorf("%s on %s: %q does not name %q and %s", handle, k.folder, se.Message, k.noun, k.serves)
			}
		}
	}
}
