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
			return answers(NewEmbedder(folder))(func(e *Embedder) (int, error) {
				got, err := e.Embed(ctx, []string{"x"})
				return len(got), err
			})
		},
		"SparseEmbedder": func(folder string) (int, error) {
			return answers(NewSparseEmbedder(folder))(func(e *SparseEmbedder) (int, error) {
				got, err := e.EmbedSparse(ctx, []string{"x"})
				return len(got), err
			})
		},
		"Reranker": func(folder string) (int, error) {
			return answers(NewReranker(folder))(func(r *Reranker) (int, error) {
				got, err := r.Rerank(ctx, "q", []string{"d"}, 0)
				return len(got), err
			})
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

// answers runs call on a handle just opened (or passes on why it could not be opened), then closes it.
func answers[H interface{ Close() error }](h H, err error) func(func(H) (int, error)) (int, error) {
	return func(call func(H) (int, error)) (int, error) {
		if err != nil {
			return 0, err
		}
		defer h.Close()
		return call(h)
	}
}
