package sieve

import (
	"context"
	"math"
	"strings"
	"testing"
)

func newReranker(t testing.TB, path string, opts ...Option) *Reranker {
	t.Helper()
	r, err := NewReranker(path, opts...)
	if err != nil {
		t.Fatalf("NewReranker(%s): %v", path, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

const rerankQuery = "How do plants make their food?"

func rerankDocs() []string {
	return []string{
		"Photosynthesis converts light energy into chemical energy stored in glucose.",
		"The stock market fell sharply on Tuesday.",
		"Plants absorb water through their roots.",
		"A cat sits on the mat.",
		"Chlorophyll gives leaves their green colour and captures sunlight.",
		"Héllo wörld, ça va?",
		"東京は日本の首都です。",
		strings.Repeat("Gardening tips for spring and summer, ", 80),
		"Fungi do not photosynthesize; they absorb nutrients.",
		"x",
		"Pizza 🍕 for dinner",
		"How do plants make their food?",
		"Roots, stems and leaves.",
	}
}

// Score and Rerank must give the command line's scores bit for bit (same
// batches: same documents, same batch size) and its order.
func TestScoreAndRerankMatchCLI(t *testing.T) {
	model := crossEncoder(t)
	docs := rerankDocs()
	r := newReranker(t, model, WithBatchSize(4))
	ctx := context.Background()
	want := cliRerank(t, model, rerankQuery, docs, "--batch-size", "4")
	if len(want) != len(docs) {
		t.Fatalf("sieve rerank returned %d results for %d documents", len(want), len(docs))
	}

	scores, err := r.Score(ctx, rerankQuery, docs)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != len(docs) {
		t.Fatalf("Score returned %d scores for %d documents", len(scores), len(docs))
	}
	for _, w := range want {
		if math.Float32bits(scores[w.Index]) != math.Float32bits(w.Score) {
			t.Fatalf("Score of document %d = %v, the command line says %v", w.Index, scores[w.Index], w.Score)
		}
	}

	for _, topK := range []int{0, 5, 1, len(docs) + 3} {
		got, err := r.Rerank(ctx, rerankQuery, docs, topK)
		if err != nil {
			t.Fatal(err)
		}
		n := len(docs)
		if topK > 0 && topK < n {
			n = topK
		}
		if len(got) != n {
			t.Fatalf("Rerank top %d returned %d results, want %d", topK, len(got), n)
		}
		for i := range got {
			if got[i].Index != want[i].Index || math.Float32bits(got[i].Score) != math.Float32bits(want[i].Score) {
				t.Fatalf("Rerank top %d: result %d is %+v, the command line's is %+v", topK, i, got[i], want[i])
			}
		}
	}

	// The command line's own top-k agrees as well.
	top3 := cliRerank(t, model, rerankQuery, docs, "--batch-size", "4", "--top-k", "3")
	got, err := r.Rerank(ctx, rerankQuery, docs, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range top3 {
		if got[i].Index != top3[i].Index || got[i].Score != top3[i].Score {
			t.Fatalf("Rerank top 3: %+v, the command line's --top-k 3: %+v", got, top3)
		}
	}

	info := r.Info()
	if info.Kind != KindReranker || info.Dimension != 1 || info.Pooling != "" || info.Folder != model {
		t.Fatalf("Info() = %+v", info)
	}
}

func TestRerankEdgeCases(t *testing.T) {
	r := newReranker(t, crossEncoder(t))
	ctx := context.Background()
	if got, err := r.Rerank(ctx, rerankQuery, nil, 3); err != nil || len(got) != 0 {
		t.Fatalf("Rerank of no documents = %v, %v", got, err)
	}
	if got, err := r.Score(ctx, rerankQuery, nil); err != nil || len(got) != 0 {
		t.Fatalf("Score of no documents = %v, %v", got, err)
	}
	// An empty query and an empty document are texts like any other.
	if got, err := r.Score(ctx, "", []string{"", "text"}); err != nil || len(got) != 2 {
		t.Fatalf("Score with empty texts = %v, %v", got, err)
	}
	_, err := r.Score(ctx, rerankQuery, []string{"ok", "ok", "bad \xc3"})
	if se := asError(t, err, CodeInvalidInput); se.InputIndex != 2 {
		t.Fatalf("Score of an invalid document: InputIndex %d, want 2 (%v)", se.InputIndex, err)
	}
	_, err = r.Rerank(ctx, "bad \xc3", []string{"ok"}, 0)
	asError(t, err, CodeInvalidInput)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Rerank(cancelled, rerankQuery, rerankDocs(), 0); err != context.Canceled {
		t.Fatalf("Rerank with a cancelled context: %v", err)
	}
	if _, err := r.Score(cancelled, rerankQuery, rerankDocs()); err != context.Canceled {
		t.Fatalf("Score with a cancelled context: %v", err)
	}
}
