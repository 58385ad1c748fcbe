package sieve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sieve-embed/sieve/bindings/go/internal/mallocstats"
)

// searchIndex builds an index of a few documents with the tiny fixture model
// through the command line (which writes indexes; the binding reads them),
// once per test binary run.
var searchIndexOnce struct {
	sync.Once
	root      string // removed by TestMain
	dir, docs string
	err       error
}

func searchIndex(t testing.TB) (index, docs string) {
	t.Helper()
	model := tinyEmbedder(t)
	sieveBin(t) // skips the test without the command line
	searchIndexOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sieve-go-index-")
		if err != nil {
			searchIndexOnce.err = err
			return
		}
		searchIndexOnce.root = dir
		docs := filepath.Join(dir, "docs")
		files := map[string]string{
			"a.txt": "Glaciers carve deep valleys over thousands of years.",
			"b.md":  "---\ntitle: Reefs\nregion: pacific\n---\n# Coral\n\nCoral **reefs** shelter fish.",
			"c.html": "<html><head><title>Dunes</title></head><body><p>Sand dunes &amp; desert winds.</p>" +
				"</body></html>",
		}
		words := strings.Fields("river mountain forest ocean desert valley glacier volcano island canyon meadow " +
			"prairie harbor lagoon delta plateau tundra marsh reef dune")
		var jsonl strings.Builder
		for i := range 40 {
			var text []string
			for j := range 5 + i%13 {
				text = append(text, words[(i*7+j*3)%len(words)])
			}
			line, _ := json.Marshal(map[string]string{
				"id": "rec-" + strconv.Itoa(i), "text": strings.Join(text, " "),
				"region": []string{"europe", "pacific"}[i%2]})
			jsonl.Write(append(line, '\n'))
		}
		files["d.jsonl"] = jsonl.String()
		if err := os.MkdirAll(docs, 0o755); err != nil {
			searchIndexOnce.err = err
			return
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
				searchIndexOnce.err = err
				return
			}
		}
		searchIndexOnce.dir, searchIndexOnce.docs = filepath.Join(dir, "index"), docs
	})
	if searchIndexOnce.err != nil {
		t.Fatal(searchIndexOnce.err)
	}
	if _, err := os.Stat(filepath.Join(searchIndexOnce.dir, "index.sqlite")); err != nil {
		runCLI(t, nil, "--log-level", "warn", "index", "add", "--index", searchIndexOnce.dir, "--model", model,
			"--quiet", searchIndexOnce.docs)
	}
	return searchIndexOnce.dir, searchIndexOnce.docs
}

func openIndex(t testing.TB, dir string) *Index {
	t.Helper()
	ix, err := OpenIndex(dir)
	if err != nil {
		t.Fatalf("OpenIndex(%s): %v", dir, err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

type cliSearchResult struct {
	Query   string      `json:"query"`
	Mode    string      `json:"mode"`
	UsedANN bool        `json:"used_ann"`
	Hits    []SearchHit `json:"hits"`
}

// cliSearch runs `sieve search --json`.
func cliSearch(t testing.TB, index, query string, args ...string) cliSearchResult {
	t.Helper()
	out := runCLI(t, nil, append([]string{"--log-level", "warn", "search", "--index", index, query, "--json"},
		args...)...)
	var parsed cliSearchResult
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("sieve search output: %v\n%s", err, out)
	}
	return parsed
}

// sameHits compares hits field by field; no matches is no matches whether
// nil or empty.
func sameHits(t testing.TB, what string, got, want []SearchHit) {
	t.Helper()
	norm := func(hits []SearchHit) []SearchHit {
		out := append([]SearchHit(nil), hits...)
		for i := range out {
			if len(out[i].Matches) == 0 {
				out[i].Matches = nil
			}
			if len(out[i].SnippetMatches) == 0 {
				out[i].SnippetMatches = nil
			}
		}
		return out
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, sieve search has %d", what, len(got), len(want))
	}
	g, w := norm(got), norm(want)
	for i := range g {
		if !reflect.DeepEqual(g[i], w[i]) {
			gj, _ := json.Marshal(g[i])
			wj, _ := json.Marshal(w[i])
			t.Fatalf("%s: hit %d differs:\n got %s\nwant %s", what, i, gj, wj)
		}
	}
}

var searchModes = map[SearchMode]string{SearchVector: "vector", SearchBM25: "bm25", SearchHybrid: "hybrid"}

// Search gives what `sieve search --json` prints, bit for bit, in every mode,
// with the index's own model and with a caller's Embedder of it.
func TestSearchEqualsTheCLI(t *testing.T) {
	dir, _ := searchIndex(t)
	ix := openIndex(t, dir)
	e := newEmbedder(t, tinyEmbedder(t))
	ctx := context.Background()
	for mode, name := range searchModes {
		for _, query := range []string{"coral reefs shelter fish", "glaciers carve valleys", "desert winds"} {
			for _, k := range []int{1, 5, 30} {
				want := cliSearch(t, dir, query, "--mode", name, "--k", strconv.Itoa(k))
				for _, embedder := range []*Embedder{nil, e} {
					got, err := ix.Search(ctx, query, SearchOptions{K: k, Mode: mode}, embedder, nil)
					if err != nil {
						t.Fatal(err)
					}
					sameHits(t, name+" "+query, got, want.Hits)
				}
				text, err := ix.SearchJSON(ctx, query, SearchOptions{K: k, Mode: mode}, e, nil)
				if err != nil {
					t.Fatal(err)
				}
				var whole cliSearchResult
				if err := json.Unmarshal(text, &whole); err != nil {
					t.Fatalf("SearchJSON: %v\n%s", err, text)
				}
				if whole.Query != query || whole.Mode != name || whole.UsedANN != want.UsedANN {
					t.Fatalf("SearchJSON: query %q mode %q used_ann %v", whole.Query, whole.Mode, whole.UsedANN)
				}
				sameHits(t, "SearchJSON "+name+" "+query, whole.Hits, want.Hits)
			}
		}
	}
	// The zero SearchOptions are sieve search's defaults.
	got, err := ix.Search(ctx, "coral", SearchOptions{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameHits(t, "defaults", got, cliSearch(t, dir, "coral").Hits)
}

// Per-document limits, pages, formats and folders give what the same flags give `sieve search`.
func TestSearchPagesFormatsAndFoldersEqualTheCLI(t *testing.T) {
	dir, docs := searchIndex(t)
	ix := openIndex(t, dir)
	ctx := context.Background()
	for _, c := range []struct {
		opts  SearchOptions
		flags []string
	}{
		{SearchOptions{K: 5, PerDocument: -1}, []string{"--k", "5", "--per-document", "0"}},
		{SearchOptions{K: 5, PerDocument: 1}, []string{"--k", "5", "--per-document", "1"}},
		{SearchOptions{K: 4, Offset: 4}, []string{"--k", "4", "--offset", "4"}},
		{SearchOptions{K: 10, Formats: []string{"markdown", "html"}}, []string{"--format", "markdown", "--format", "html"}},
		{SearchOptions{K: 10, Folders: []string{filepath.Join(docs, "a.txt")}},
			[]string{"--folder", filepath.Join(docs, "a.txt")}},
	} {
		want := cliSearch(t, dir, "coral glacier dunes reef", c.flags...)
		got, err := ix.Search(ctx, "coral glacier dunes reef", c.opts, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatalf("%v: no hits", c.flags)
		}
		sameHits(t, strings.Join(c.flags, " "), got, want.Hits)
	}
	page, err := ix.Search(ctx, "reef", SearchOptions{K: 2, Offset: 2}, nil, nil)
	if err != nil || len(page) == 0 || page[0].Rank != 3 {
		t.Fatalf("the second page of 2 starts at rank 3: %v %v", page, err)
	}
	if _, err := ix.Search(ctx, "reef", SearchOptions{Offset: -1}, nil, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("a negative offset: %v", err)
	}
}

func TestSearchFiltersAndExactEqualTheCLI(t *testing.T) {
	dir, docs := searchIndex(t)
	ix := openIndex(t, dir)
	ctx := context.Background()
	for mode, name := range searchModes {
		for _, filters := range []map[string]string{
			{"region": "pacific"},
			{"region": "nowhere"},
			{"source": filepath.Join(docs, "d.jsonl"), "region": "europe"},
		} {
			var flags []string
			for key, value := range filters {
				flags = append(flags, "--filter", key+"="+value)
			}
			want := cliSearch(t, dir, "reef delta", append([]string{"--mode", name, "--k", "15"}, flags...)...)
			got, err := ix.Search(ctx, "reef delta", SearchOptions{K: 15, Mode: mode, Filters: filters}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			sameHits(t, name+" filtered", got, want.Hits)
			for _, hit := range got {
				if hit.Metadata["region"] != filters["region"] {
					t.Fatalf("hit %s has region %q", hit.DocumentID, hit.Metadata["region"])
				}
			}
		}
		want := cliSearch(t, dir, "dunes", "--mode", name, "--exact", "--ef", "16")
		got, err := ix.Search(ctx, "dunes", SearchOptions{Mode: mode, Exact: true, EfSearch: 16}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameHits(t, name+" exact", got, want.Hits)
	}
}

func TestSearchRerankEqualsTheCLI(t *testing.T) {
	dir, _ := searchIndex(t)
	ix := openIndex(t, dir)
	r := newReranker(t, crossEncoder(t))
	for _, mode := range []SearchMode{SearchHybrid, SearchBM25} {
		want := cliSearch(t, dir, "coral reefs shelter fish", "--mode", searchModes[mode], "--k", "5",
			"--rerank", crossEncoder(t), "--rerank-candidates", "12")
		got, err := ix.Search(context.Background(), "coral reefs shelter fish",
			SearchOptions{K: 5, Mode: mode, RerankCandidates: 12}, nil, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, hit := range got {
			if hit.RerankScore == nil || *hit.RerankScore != hit.Score {
				t.Fatalf("hit %s: rerank score %v, score %v", hit.DocumentID, hit.RerankScore, hit.Score)
			}
		}
		sameHits(t, "reranked "+searchModes[mode], got, want.Hits)
	}
}

func TestIndexStatsEqualTheCLI(t *testing.T) {
	dir, _ := searchIndex(t)
	ix := openIndex(t, dir)
	got, err := ix.Stats()
	if err != nil {
		t.Fatal(err)
	}
	var want IndexStats
	if err := json.Unmarshal(runCLI(t, nil, "index", "stats", "--index", dir, "--json"), &want); err != nil {
		t.Fatal(err)
	}
	// The database's size counts its write-ahead log, which readers may touch.
	got.DatabaseBytes, want.DatabaseBytes = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Stats() = %+v\nsieve index stats: %+v", got, want)
	}
	if got.Documents != 43 || got.Model.Dimension == 0 || !strings.HasSuffix(got.Model.Path, "tiny-bert-tokens") {
		t.Fatalf("Stats() = %+v", got)
	}
}

func TestSearchErrors(t *testing.T) {
	dir, _ := searchIndex(t)
	ctx := context.Background()
	if _, err := OpenIndex(filepath.Join(t.TempDir(), "none")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("OpenIndex of a missing folder: %v", err)
	}
	if _, err := OpenIndex("a\x00b"); !isCode(err, CodeInvalidArgument) {
		t.Fatalf("OpenIndex of a path with NUL: %v", err)
	}
	ix := openIndex(t, dir)
	for _, c := range []struct {
		opts SearchOptions
		code Code
	}{
		{SearchOptions{K: 1001, Mode: SearchBM25}, CodeInvalidArgument},
		{SearchOptions{K: -1}, CodeInvalidArgument},
		{SearchOptions{Mode: SearchMode(9)}, CodeInvalidArgument},
		{SearchOptions{Mode: SearchBM25, Filters: map[string]string{"": "x"}}, CodeInvalidArgument},
	} {
		if _, err := ix.Search(ctx, "reef", c.opts, nil, nil); !isCode(err, c.code) {
			t.Errorf("Search with %+v: %v, want %v", c.opts, err, c.code)
		}
	}
	if _, err := ix.Search(ctx, "", SearchOptions{Mode: SearchBM25}, nil, nil); !isCode(err, CodeInvalidInput) {
		t.Errorf("empty query: %v", err)
	}
	other := newEmbedder(t, filepath.Join(fixturesDir(t), "tiny-bert-cls"))
	if _, err := ix.Search(ctx, "reef", SearchOptions{Mode: SearchVector}, other, nil); !isCode(err, CodeInvalidArgument) {
		t.Errorf("another model than the index's: %v", err)
	}
	closedEmbedder := newEmbedder(t, tinyEmbedder(t))
	closedEmbedder.Close()
	if _, err := ix.Search(ctx, "reef", SearchOptions{}, closedEmbedder, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("closed embedder: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cancelled, "reef", SearchOptions{}, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	ix.Close()
	ix.Close() // idempotent
	if _, err := ix.Search(ctx, "reef", SearchOptions{}, nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Search after Close: %v", err)
	}
	if _, err := ix.Stats(); !errors.Is(err, ErrClosed) {
		t.Errorf("Stats after Close: %v", err)
	}
}

// Many goroutines on one Index (which loads its own model on the way) get the
// answers of one goroutine alone.
func TestSearchConcurrently(t *testing.T) {
	dir, _ := searchIndex(t)
	ix := openIndex(t, dir)
	ctx := context.Background()
	reference := openIndex(t, dir)
	want, err := reference.Search(ctx, "islands and reefs", SearchOptions{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				got, err := ix.Search(ctx, "islands and reefs", SearchOptions{}, nil, nil)
				if err == nil && !reflect.DeepEqual(got, want) {
					err = errors.New("a concurrent search gave other hits")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Searching copies the results into Go and frees them in C; opening and
// closing an index frees it. Neither grows C or Go memory.
func TestSearchDoesNotLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: 2,000 iterations")
	}
	dir, _ := searchIndex(t)
	ctx := context.Background()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	baseline := liveHandles.Load()
	iterate := func(n int) {
		for i := range n {
			ix, err := OpenIndex(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Search(ctx, "coral reefs", SearchOptions{Mode: SearchBM25}, nil, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.SearchJSON(ctx, "desert", SearchOptions{Mode: SearchBM25, K: 3}, nil, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Search(ctx, "", SearchOptions{Mode: SearchBM25}, nil, nil); err == nil {
				t.Fatal("an empty query did not fail")
			}
			if _, err := ix.Stats(); err != nil {
				t.Fatal(err)
			}
			ix.Close()
			if i%200 == 199 {
				runtime.GC()
			}
		}
	}
	measure := func() (int64, int64) {
		runtime.GC()
		malloc, _ := mallocstats.InUse()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(malloc), int64(ms.HeapAlloc)
	}
	iterate(200)
	mallocBefore, heapBefore := measure()
	const iterations = 2000
	iterate(iterations)
	mallocAfter, heapAfter := measure()
	t.Logf("growth over %d iterations: malloc in use %+d bytes, Go heap %+d bytes", iterations,
		mallocAfter-mallocBefore, heapAfter-heapBefore)
	if growth := mallocAfter - mallocBefore; growth > 256<<10 {
		t.Errorf("malloc'd memory in use grew by %d KiB over %d iterations", growth>>10, iterations)
	}
	if growth := heapAfter - heapBefore; growth > 256<<10 {
		t.Errorf("Go heap in use grew by %d KiB over %d iterations", growth>>10, iterations)
	}
	if live := liveHandles.Load(); live != baseline {
		t.Errorf("%d handles live after closing every index, %d before", live, baseline)
	}
}
