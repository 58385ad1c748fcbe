package sieve

/*
#include <stdlib.h>
#include "sieve.h"
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"unsafe"
)

// Index is a local search index made by `sieve index add`: a folder holding
// an SQLite database (documents, chunks, metadata, vectors, BM25) and a
// nearest-neighbour graph. It is safe for concurrent use by many goroutines;
// a search sees one consistent snapshot even while another process adds to
// the index.
type Index struct {
	h *handle[*C.sieve_index]
}

// SearchMode says how Search ranks chunks.
type SearchMode int

const (
	// SearchHybrid fuses the vector and BM25 rankings (reciprocal rank
	// fusion). The zero value: the default.
	SearchHybrid SearchMode = C.SIEVE_SEARCH_HYBRID
	// SearchVector ranks by cosine similarity of the embeddings.
	SearchVector SearchMode = C.SIEVE_SEARCH_VECTOR
	// SearchBM25 ranks by full-text BM25; it needs no embedding model.
	SearchBM25 SearchMode = C.SIEVE_SEARCH_BM25
)

func (m SearchMode) String() string {
	switch m {
	case SearchHybrid:
		return "hybrid"
	case SearchVector:
		return "vector"
	case SearchBM25:
		return "bm25"
	}
	return fmt.Sprintf("SearchMode(%d)", int(m))
}

// SearchOptions configures Search. The zero value asks for the defaults of
// `sieve search`: 10 hybrid results.
type SearchOptions struct {
	K                int        // results at most, 1 to 1000; 0: 10
	Mode             SearchMode // SearchHybrid (the zero value), SearchVector or SearchBM25
	RerankCandidates int        // with a reranker: fused candidates it scores (at least K); 0: 20
	Exact            bool       // compare with every stored vector instead of the graph
	EfSearch         int        // graph search breadth; 0: 64
	// Document metadata every hit must have: key -> value ("source" matches
	// the file the document came from).
	Filters map[string]string
	// At most this many hits of one document, its best chunks first; 0: 2;
	// negative: no limit.
	PerDocument int
	// Hits skipped first: Offset K gives the second page of the same ranking.
	Offset int
	// Documents of any of these formats ("pdf", "markdown", "text"; IndexStats'
	// DocumentsByFormat names them); empty: any.
	Formats []string
	// Documents from files in or below any of these absolute paths (on path
	// boundaries); empty: any.
	Folders []string
}

// SearchHit is one chunk of a document that matched, with the field names of
// `sieve search --json` and POST /v1/search.
type SearchHit struct {
	Score float64 `json:"score"` // of the mode (cosine, BM25, fused), or the reranker's
	// The scores behind it; nil when the hit has none of that kind.
	VectorScore *float64 `json:"vector_score"`
	BM25Score   *float64 `json:"bm25_score"`
	RerankScore *float64 `json:"rerank_score"`
	DocumentID  string   `json:"document_id"`
	Source      string   `json:"source"` // the file the document came from
	Title       string   `json:"title"`
	ChunkID     int64    `json:"chunk_id"`
	ChunkIndex  int      `json:"chunk_index"`
	// Byte offsets of the chunk in its document's text.
	ChunkBegin int `json:"chunk_begin"`
	ChunkEnd   int `json:"chunk_end"`
	// Where the chunk starts: "page 3", "slide 2", "sheet Budget"; "" when the document has no parts.
	Section string `json:"section"`
	Text    string `json:"text"`
	// Byte spans [begin, end) in Text of words of the query.
	Matches  [][2]int          `json:"matches"`
	Metadata map[string]string `json:"metadata"`
	// 1 for the best hit of the ranking (Offset + 1 for the first of a later page).
	Rank int `json:"rank"`
	// 0 to 1: the reranker's probability, the cosine for vector search, else
	// the score over the best hit's.
	Relevance float64 `json:"relevance"`
	Format    string  `json:"format"` // of the document, as its reader names it ("pdf", "markdown")
	// A passage of about 240 bytes around the matches ("…" where text was cut),
	// and the byte spans in it of words of the query.
	Snippet        string   `json:"snippet"`
	SnippetMatches [][2]int `json:"snippet_matches"`
}

// IndexModel is the embedding model an index was built with.
type IndexModel struct {
	Name       string `json:"name"`
	Path       string `json:"path"` // the model folder, as it was at indexing
	ONNXSHA256 string `json:"onnx_sha256"`
	Dimension  int    `json:"dimension"`
	Pooling    string `json:"pooling"`
	Normalize  bool   `json:"normalize"`
}

// IndexStats describes an index, as `sieve index stats --json` does.
type IndexStats struct {
	Folder         string     `json:"folder"`
	Model          IndexModel `json:"model"`
	ChunkTokens    int        `json:"chunk_tokens"`
	OverlapTokens  int        `json:"overlap_tokens"`
	Sources        int        `json:"sources"`
	Documents      int        `json:"documents"`
	Chunks         int        `json:"chunks"`
	DatabaseBytes  uint64     `json:"database_bytes"` // the SQLite file and its write-ahead log
	ANNBytes       uint64     `json:"ann_bytes"`      // the graph file
	ANNElements    int        `json:"ann_elements"`   // chunks the graph covers (0: exact search only)
	ExactThreshold int        `json:"exact_threshold"`
	// How the graph holds the vectors in memory: "float32", "int8" or "binary" (chosen at sieve index create
	// --vectors); with codes, the best Rescore candidates per hit are rescored with the float32 vectors on disk.
	Vectors         string `json:"vectors"`
	GraphDimensions int    `json:"graph_dimensions"` // of each vector the graph holds (0: all)
	Rescore         int    `json:"rescore"`
	ANNVectorBytes  uint64 `json:"ann_vector_bytes"` // the graph's vectors or codes in memory
}

// OpenIndex opens the index in folder. A folder that holds none gives an
// error matching ErrNotFound. Nothing is loaded until a search needs the
// index's embedding model.
func OpenIndex(folder string) (*Index, error) {
	if err := abiCheck(); err != nil {
		return nil, err
	}
	cFolder, err := cString(folder, "index folder")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cFolder))
	var ptr *C.sieve_index
	if err := statusError(C.sieve_index_open(cFolder, &ptr)); err != nil {
		return nil, err
	}
	return &Index{h: newHandle(ptr, destroyIndex, "Index "+folder)}, nil
}

func destroyIndex(p *C.sieve_index) { C.sieve_index_destroy(p) }

// Stats returns the index's statistics.
func (ix *Index) Stats() (IndexStats, error) {
	ptr, err := ix.h.acquire()
	if err != nil {
		return IndexStats{}, err
	}
	defer ix.h.release()
	var out *C.char
	var size C.size_t
	if err := statusError(C.sieve_index_stats_json(ptr, &out, &size)); err != nil {
		return IndexStats{}, err
	}
	text := C.GoBytes(unsafe.Pointer(out), C.int(size))
	C.sieve_string_free(out)
	var stats IndexStats
	if err := json.Unmarshal(text, &stats); err != nil {
		return IndexStats{}, fmt.Errorf("sieve: reading the index statistics: %w", err)
	}
	return stats, nil
}

// Search returns the chunks that best match query, best first.
//
// embedder is the index's embedding model (an Embedder of the same ONNX file,
// else an error matching ErrInvalidArgument), or nil for the model folder the
// index records, which the Index then loads once, with default options, and
// keeps until Close. BM25 searches use none. reranker, when not nil, rescores
// the best RerankCandidates candidates with a cross-encoder.
//
// ctx is checked before the call only.
func (ix *Index) Search(ctx context.Context, query string, opts SearchOptions, embedder *Embedder,
	reranker *Reranker) ([]SearchHit, error) {
	var hits []SearchHit
	err := ix.search(ctx, query, opts, embedder, reranker, func(results *C.sieve_search_results) error {
		var err error
		hits, err = copyHits(results)
		return err
	})
	return hits, err
}

// SearchJSON is Search with the answer as the JSON text `sieve search --json`
// prints and POST /v1/search answers ({"query", "mode", "used_ann",
// "seconds", "hits"}).
func (ix *Index) SearchJSON(ctx context.Context, query string, opts SearchOptions, embedder *Embedder,
	reranker *Reranker) ([]byte, error) {
	var text []byte
	err := ix.search(ctx, query, opts, embedder, reranker, func(results *C.sieve_search_results) error {
		var out *C.char
		var size C.size_t
		if err := statusError(C.sieve_search_results_json(results, &out, &size)); err != nil {
			return err
		}
		text = C.GoBytes(unsafe.Pointer(out), C.int(size))
		C.sieve_string_free(out)
		return nil
	})
	return text, err
}

// search runs one search and hands its results to use, then frees them.
func (ix *Index) search(ctx context.Context, query string, opts SearchOptions, embedder *Embedder,
	reranker *Reranker, use func(*C.sieve_search_results) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if opts.K < 0 || opts.RerankCandidates < 0 || opts.EfSearch < 0 || opts.Offset < 0 {
		return invalidArgument("SearchOptions: K, RerankCandidates, EfSearch and Offset must not be negative")
	}
	ptr, err := ix.h.acquire()
	if err != nil {
		return err
	}
	defer ix.h.release()
	var embedderPtr, rerankerPtr *C.sieve_model
	if embedder != nil {
		if embedderPtr, err = embedder.m.h.acquire(); err != nil {
			return err
		}
		defer embedder.m.h.release()
	}
	if reranker != nil {
		if rerankerPtr, err = reranker.m.h.acquire(); err != nil {
			return err
		}
		defer reranker.m.h.release()
	}

	var pinner runtime.Pinner
	defer pinner.Unpin()
	var co C.sieve_search_options
	C.sieve_search_options_init(&co, C.size_t(unsafe.Sizeof(co)))
	if opts.K > 0 {
		co.k = C.size_t(opts.K)
	}
	co.mode = C.sieve_search_mode(opts.Mode)
	if opts.RerankCandidates > 0 {
		co.rerank_candidates = C.size_t(opts.RerankCandidates)
	}
	if opts.Exact {
		co.exact = 1
	}
	if opts.EfSearch > 0 {
		co.ef_search = C.size_t(opts.EfSearch)
	}
	if len(opts.Filters) > 0 {
		// In key order, so that the same options make the same call.
		names := make([]string, 0, len(opts.Filters))
		for key := range opts.Filters {
			names = append(names, key)
		}
		sort.Strings(names)
		values := make([]string, len(names))
		for i, key := range names {
			values[i] = opts.Filters[key]
		}
		keys, vals := pinTexts(&pinner, names), pinTexts(&pinner, values)
		// The arrays are Go memory that co (passed to C) points to: pinned too.
		pinner.Pin(&keys[0])
		pinner.Pin(&vals[0])
		co.filter_keys, co.filter_values = &keys[0], &vals[0]
		co.filter_count = C.size_t(len(names))
	}
	if opts.PerDocument > 0 {
		co.per_document = C.size_t(opts.PerDocument)
	} else if opts.PerDocument < 0 {
		co.per_document = 0
	}
	co.offset = C.size_t(opts.Offset)
	if len(opts.Formats) > 0 {
		formats := pinTexts(&pinner, opts.Formats)
		pinner.Pin(&formats[0])
		co.formats, co.format_count = &formats[0], C.size_t(len(formats))
	}
	if len(opts.Folders) > 0 {
		folders := pinTexts(&pinner, opts.Folders)
		pinner.Pin(&folders[0])
		co.folders, co.folder_count = &folders[0], C.size_t(len(folders))
	}
	q := pinText(&pinner, query)
	var results *C.sieve_search_results
	if err := statusError(C.sieve_index_search(ptr, embedderPtr, rerankerPtr, q, &co, &results)); err != nil {
		return err
	}
	defer C.sieve_search_results_destroy(results)
	return use(results)
}

// goSpans copies count [begin, end) spans (2 * count C values); nil for none.
func goSpans(flat *C.size_t, count C.size_t) [][2]int {
	if count == 0 {
		return nil
	}
	values := unsafe.Slice((*C.size_t)(unsafe.Pointer(flat)), 2*int(count))
	spans := make([][2]int, int(count))
	for m := range spans {
		spans[m] = [2]int{int(values[2*m]), int(values[2*m+1])}
	}
	return spans
}

// copyHits copies the results into Go values.
func copyHits(results *C.sieve_search_results) ([]SearchHit, error) {
	n := int(C.sieve_search_results_size(results))
	hits := make([]SearchHit, n)
	for i := range hits {
		var ch C.sieve_search_hit
		ch.struct_size = C.sizeof_sieve_search_hit
		if err := statusError(C.sieve_search_results_get(results, C.size_t(i), &ch)); err != nil {
			return nil, err
		}
		hit := &hits[i]
		hit.Score = float64(ch.score)
		hit.VectorScore = optionalScore(ch.vector_score)
		hit.BM25Score = optionalScore(ch.bm25_score)
		hit.RerankScore = optionalScore(ch.rerank_score)
		hit.DocumentID = goText(ch.document_id)
		hit.Source = goText(ch.source)
		hit.Title = goText(ch.title)
		hit.Text = goText(ch.text)
		hit.ChunkID = int64(ch.chunk_id)
		hit.ChunkIndex = int(ch.chunk_index)
		hit.ChunkBegin = int(ch.chunk_begin)
		hit.ChunkEnd = int(ch.chunk_end)
		hit.Section = goText(ch.section)
		hit.Matches = goSpans(ch.matches, ch.match_count)
		hit.Rank = int(ch.rank)
		hit.Relevance = float64(ch.relevance)
		hit.Format = goText(ch.format)
		hit.Snippet = goText(ch.snippet)
		hit.SnippetMatches = goSpans(ch.snippet_matches, ch.snippet_match_count)
		if err := json.Unmarshal([]byte(C.GoString(ch.metadata_json)), &hit.Metadata); err != nil {
			return nil, fmt.Errorf("sieve: reading the metadata of hit %d: %w", i, err)
		}
	}
	return hits, nil
}

func goText(t C.sieve_text) string {
	if t.size == 0 {
		return ""
	}
	return C.GoStringN(t.data, C.int(t.size))
}

func optionalScore(v C.double) *float64 {
	f := float64(v)
	if math.IsNaN(f) {
		return nil
	}
	return &f
}

// Close releases the index (and the model it loaded itself). It waits for
// searches in flight; later calls return an error wrapping ErrClosed.
// Closing again does nothing.
func (ix *Index) Close() error {
	ix.h.close()
	return nil
}
