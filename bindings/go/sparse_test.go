package sieve

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// spladeTiny is a sparse (SPLADE) model exported from a real one by the
// fixtures stage of scripts/test.sh, with the vectors sentence-transformers
// gives for some texts in its reference.json. Where scripts/test.sh runs (it
// sets SIEVE_TEST_TIER, and CI runs it) a missing fixture fails the test;
// elsewhere the test is skipped.
func spladeTiny(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(fixturesDir(t), "splade-tiny")
	if _, err := os.Stat(dir); err != nil && os.Getenv("SIEVE_TEST_TIER") != "" {
		t.Fatalf("fixture splade-tiny not found at %s (SIEVE_TEST_TIER is set: scripts/test.sh makes it)", dir)
	}
	return requireDir(t, dir, "fixture splade-tiny")
}

func newSparseEmbedder(t testing.TB, path string, opts ...Option) *SparseEmbedder {
	t.Helper()
	e, err := NewSparseEmbedder(path, opts...)
	if err != nil {
		t.Fatalf("NewSparseEmbedder(%s): %v", path, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// readSparseReference reads the fixture's reference.json
// (tools/make_sparse_reference.py): the texts and, per text, the token ids of
// the non-zero weights sentence-transformers' SparseEncoder gives (ascending)
// and the weights.
func readSparseReference(t testing.TB, folder string) (texts []string, vectors []SparseVector) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(folder, "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Texts []struct {
			Text    string    `json:"text"`
			Indices []uint32  `json:"indices"`
			Values  []float32 `json:"values"`
		} `json:"texts"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("%s/reference.json: %v", folder, err)
	}
	if len(ref.Texts) == 0 {
		t.Fatalf("%s/reference.json has no texts", folder)
	}
	for _, e := range ref.Texts {
		texts = append(texts, e.Text)
		vectors = append(vectors, SparseVector{Indices: e.Indices, Values: e.Values})
	}
	return texts, vectors
}

// requireWellFormed fails unless v's indices strictly ascend below vocab and
// its values are finite and above floor.
func requireWellFormed(t testing.TB, what string, v SparseVector, vocab int, floor float32) {
	t.Helper()
	if len(v.Indices) != len(v.Values) {
		t.Fatalf("%s: %d indices, %d values", what, len(v.Indices), len(v.Values))
	}
	for i, id := range v.Indices {
		if int(id) >= vocab || (i > 0 && id <= v.Indices[i-1]) {
			t.Fatalf("%s: index %d is %d after %v (vocabulary %d)", what, i, id, v.Indices[max(i-1, 0)], vocab)
		}
		if w := v.Values[i]; !(w > floor) || math.IsInf(float64(w), 0) {
			t.Fatalf("%s: weight %v of token %d, want finite and above %v", what, w, id, floor)
		}
	}
}

func weightOf(v SparseVector, id uint32) float32 {
	if i, ok := slices.BinarySearch(v.Indices, id); ok {
		return v.Values[i]
	}
	return 0
}

// requireSparseClose fails unless every weight of got and want agrees within
// tolerance (0 where absent) and both have the same ids above floor.
func requireSparseClose(t testing.TB, what string, got, want SparseVector, tolerance, floor float32) {
	t.Helper()
	for _, pair := range [2][2]SparseVector{{got, want}, {want, got}} {
		a, b := pair[0], pair[1]
		for i, id := range a.Indices {
			wa, wb := a.Values[i], weightOf(b, id)
			if d := math.Abs(float64(wa - wb)); !(d <= float64(tolerance)) {
				t.Fatalf("%s: token %d weighs %v and %v (|diff| %g > %g)", what, id, wa, wb, d, tolerance)
			}
			if wa > floor && !slices.Contains(b.Indices, id) {
				t.Fatalf("%s: token %d (weight %v) is missing from the other vector", what, id, wa)
			}
		}
	}
}

// pruned is full pruned as WithMinWeight and WithTopK say: the weights above
// minWeight, then the topK largest (ties: the smaller id), by id.
func pruned(full SparseVector, topK int, minWeight float32) SparseVector {
	var order []int
	for i, w := range full.Values {
		if w > minWeight {
			order = append(order, i)
		}
	}
	if topK > 0 && len(order) > topK {
		slices.SortStableFunc(order, func(a, b int) int {
			if full.Values[a] != full.Values[b] {
				if full.Values[a] > full.Values[b] {
					return -1
				}
				return 1
			}
			return int(full.Indices[a]) - int(full.Indices[b])
		})
		order = order[:topK]
		slices.Sort(order)
	}
	out := SparseVector{Indices: []uint32{}, Values: []float32{}}
	for _, i := range order {
		out.Indices = append(out.Indices, full.Indices[i])
		out.Values = append(out.Values, full.Values[i])
	}
	return out
}

func requireSameSparse(t testing.TB, what string, got, want SparseVector) {
	t.Helper()
	if !slices.Equal(got.Indices, want.Indices) || !slices.Equal(got.Values, want.Values) {
		t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// sentence-transformers' vectors for the reference texts: weights within
// 1e-4, the same tokens above 1e-3.
func TestEmbedSparseMatchesSentenceTransformers(t *testing.T) {
	folder := spladeTiny(t)
	e := newSparseEmbedder(t, folder)
	info := e.Info()
	if info.Kind != KindSparse || info.Kind.String() != "sparse" || info.Normalize || info.Dimension < 1000 ||
		e.Dimension() != info.Dimension || info.MaxLength <= 0 || info.Folder != folder ||
		!slices.Contains([]string{"splade max", "splade sum", "model"}, info.Pooling) {
		t.Fatalf("Info() = %+v", info)
	}
	texts, want := readSparseReference(t, folder)
	got, err := e.EmbedSparse(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(texts))
	}
	for i := range texts {
		requireWellFormed(t, texts[i], got[i], info.Dimension, 0)
		requireSparseClose(t, texts[i], got[i], want[i], 1e-4, 1e-3)
	}
}

// Pruning is the full vectors pruned: WithTopK keeps the k largest weights
// (ties: the smaller id) by id, WithMinWeight drops weights at or below it.
func TestEmbedSparsePruning(t *testing.T) {
	e := newSparseEmbedder(t, spladeTiny(t))
	ctx := context.Background()
	texts := testTexts()
	full, err := e.EmbedSparse(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		requireWellFormed(t, texts[i], full[i], e.Dimension(), 0)
		if len(full[i].Indices) == 0 {
			t.Fatalf("text %d has an empty vector", i)
		}
	}
	// The same texts give the same bits; a text alone, its row up to the
	// float noise of padding to another length.
	again, err := e.EmbedSparse(ctx, texts, WithTopK(0), WithMinWeight(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		requireSameSparse(t, "a second call", again[i], full[i])
	}
	alone, err := e.EmbedSparse(ctx, texts[2:3])
	if err != nil {
		t.Fatal(err)
	}
	requireSparseClose(t, "a text alone", alone[0], full[2], 1e-4, 1e-3)

	floor := full[0].Values[len(full[0].Values)/2]
	cases := []struct {
		topK      int
		minWeight float32
	}{{1, 0}, {3, 0}, {17, 0}, {100000, 0}, {0, floor}, {5, floor}, {0, 1e30}}
	for _, c := range cases {
		var opts []SparseOption
		if c.topK != 0 {
			opts = append(opts, WithTopK(c.topK))
		}
		if c.minWeight != 0 {
			opts = append(opts, WithMinWeight(c.minWeight))
		}
		got, err := e.EmbedSparse(ctx, texts, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i := range texts {
			requireSameSparse(t, "pruned", got[i], pruned(full[i], c.topK, c.minWeight))
			if c.topK > 0 && len(got[i].Indices) > c.topK {
				t.Fatalf("WithTopK(%d) kept %d", c.topK, len(got[i].Indices))
			}
		}
	}
	// Each vector's slices are its own: appending to one leaves the next.
	if len(full) > 1 {
		next := slices.Clone(full[1].Indices)
		_ = append(full[0].Indices, 7)
		if !slices.Equal(full[1].Indices, next) {
			t.Fatal("appending to one vector's indices changed the next vector")
		}
	}
}

func TestEmbedSparseErrors(t *testing.T) {
	folder := spladeTiny(t)
	e := newSparseEmbedder(t, folder)
	ctx := context.Background()

	got, err := e.EmbedSparse(ctx, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("EmbedSparse of no texts = %v, %v", got, err)
	}
	if got, err := e.EmbedSparse(ctx, []string{""}); err != nil || len(got) != 1 {
		t.Fatalf("EmbedSparse of an empty text = %v, %v", got, err)
	}
	_, err = e.EmbedSparse(ctx, []string{"fine", "also fine", "broken \xff\xfe here", "fine again"})
	if se := asError(t, err, CodeInvalidInput); se.InputIndex != 2 {
		t.Fatalf("invalid UTF-8: InputIndex %d, want 2", se.InputIndex)
	}
	for name, opt := range map[string]SparseOption{
		"negative top k":      WithTopK(-1),
		"negative min weight": WithMinWeight(-0.5),
		"NaN min weight":      WithMinWeight(float32(math.NaN())),
	} {
		if _, err := e.EmbedSparse(ctx, []string{"text"}, opt); !isCode(err, CodeInvalidArgument) {
			t.Errorf("%s: got %v, want an invalid-argument error", name, err)
		}
	}

	// Each kind refuses the others' folders, naming the handle to use.
	_, err = NewEmbedder(folder)
	if se := asError(t, err, CodeWrongKind); !strings.Contains(se.Message, "SparseEmbedder") {
		t.Fatalf("NewEmbedder of a sparse model: %v", err)
	}
	_, err = NewReranker(folder)
	asError(t, err, CodeWrongKind)
	_, err = NewSparseEmbedder(tinyEmbedder(t))
	asError(t, err, CodeWrongKind)
	_, err = NewSparseEmbedder(crossEncoder(t))
	asError(t, err, CodeWrongKind)
	if _, err := NewSparseEmbedder(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("NewSparseEmbedder of a missing folder: %v", err)
	}
	// Dense-only options.
	for name, opt := range map[string]Option{
		"pooling":    WithPooling("mean"),
		"dimensions": WithDimensions(8),
		"normalize":  WithNormalize(true),
	} {
		if _, err := NewSparseEmbedder(folder, opt); !isCode(err, CodeInvalidArgument) {
			t.Errorf("%s: got %v, want an invalid-argument error", name, err)
		}
	}

	// The model's tokenizer, a cancelled context, and Close.
	if enc, err := e.Tokenize("hello world"); err != nil || len(enc.IDs) < 3 {
		t.Fatalf("Tokenize = %v, %v", enc, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := e.EmbedSparse(cancelled, []string{"text"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("EmbedSparse with a cancelled context: %v", err)
	}
	closing := newSparseEmbedder(t, folder)
	closing.Close()
	if _, err := closing.EmbedSparse(ctx, []string{"text"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("EmbedSparse after Close: %v", err)
	}
	if closing.Info().Kind != KindSparse {
		t.Fatal("Info() after Close lost the kind")
	}
}

func TestRegistrySparse(t *testing.T) {
	folder := spladeTiny(t)
	root := t.TempDir()
	cloneTree(t, folder, filepath.Join(root, "splade"))
	cloneTree(t, tinyEmbedder(t), filepath.Join(root, "tiny"))
	reg, err := OpenRegistry(root)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	direct := newSparseEmbedder(t, folder)
	entries, err := reg.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Name != "splade" || entries[0].Kind != KindSparse ||
		entries[0].Dimension != direct.Dimension() || entries[1].Kind != KindEmbedding {
		t.Fatalf("List() = %+v", entries)
	}
	if _, err := reg.Embedder("splade"); !errors.Is(err, ErrWrongKind) {
		t.Fatalf("Embedder of a sparse model: %v", err)
	}
	if _, err := reg.SparseEmbedder("tiny"); !errors.Is(err, ErrWrongKind) {
		t.Fatalf("SparseEmbedder of a dense model: %v", err)
	}
	e, err := reg.SparseEmbedder("splade")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	texts := testTexts()[:6]
	got, err := e.EmbedSparse(context.Background(), texts, WithTopK(10))
	if err != nil {
		t.Fatal(err)
	}
	want, err := direct.EmbedSparse(context.Background(), texts, WithTopK(10))
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		requireSameSparse(t, "the registry's model", got[i], want[i])
	}
}
