// Command search is a small local semantic search: it embeds a few dozen
// documents and a query, ranks the documents by cosine similarity, and
// reranks the best ten with a cross-encoder.
//
//	go run ./examples/search [-model DIR] [-reranker DIR] [-top N] [query ...]
//
// By default it uses the repository's models/all-MiniLM-L6-v2 and the
// cross-encoder test fixture build/fixtures/cross-encoder-minilm-l6 (found
// from the working directory upwards). That fixture has random weights, so
// its reranking is arbitrary; pass -reranker with a real cross-encoder (such
// as cross-encoder/ms-marco-MiniLM-L-6-v2 exported to ONNX) for a useful one.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	sieve "github.com/sieve-embed/sieve/bindings/go"
)

var documents = []string{
	"Photosynthesis lets plants turn sunlight, water and carbon dioxide into sugar and oxygen.",
	"Chlorophyll is the green pigment that absorbs light in the leaves of plants.",
	"Roots take up water and minerals from the soil.",
	"Bees pollinate flowers while collecting nectar.",
	"The Amazon rainforest produces a large share of the world's oxygen.",
	"A black hole is a region of spacetime where gravity prevents anything from escaping.",
	"Jupiter is the largest planet in the solar system.",
	"The Moon's gravity causes the tides in Earth's oceans.",
	"Light from the Sun takes about eight minutes to reach Earth.",
	"The James Webb Space Telescope observes the universe in infrared light.",
	"Preheat the oven to 220 degrees before baking the bread.",
	"A good risotto needs constant stirring and warm stock.",
	"Espresso is brewed by forcing hot water through finely ground coffee.",
	"Sourdough bread rises thanks to wild yeast and lactic acid bacteria.",
	"Fresh basil, tomatoes and mozzarella make a simple Caprese salad.",
	"Go's goroutines are lightweight threads managed by the runtime.",
	"A hash map offers constant-time lookups on average.",
	"Garbage collection frees memory that a program no longer uses.",
	"SQL joins combine rows from two or more tables.",
	"Binary search finds an item in a sorted list in logarithmic time.",
	"Regular exercise strengthens the heart and lowers blood pressure.",
	"Sleep helps the brain consolidate memories.",
	"Vitamin D is produced in the skin when it is exposed to sunlight.",
	"Drinking enough water keeps the body hydrated.",
	"The Great Wall of China stretches for thousands of kilometres.",
	"The French Revolution began in 1789.",
	"The printing press spread knowledge quickly across Europe.",
	"Ancient Egyptians built the pyramids as tombs for pharaohs.",
	"The stock market fell as investors worried about inflation.",
	"Central banks raise interest rates to slow rising prices.",
	"A diversified portfolio spreads risk across many assets.",
	"The offside rule in football is often debated.",
	"Marathon runners train for months to cover 42 kilometres.",
	"Chess players plan many moves ahead.",
	"Solar panels convert sunlight directly into electricity.",
	"Wind turbines generate power from moving air.",
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "search:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	flags := flag.NewFlagSet("search", flag.ContinueOnError)
	model := flags.String("model", findUp(filepath.Join("models", "all-MiniLM-L6-v2")), "embedding model folder")
	reranker := flags.String("reranker", defaultReranker(), "cross-encoder folder")
	top := flags.Int("top", 10, "how many of the best cosine matches to rerank")
	if err := flags.Parse(args); err != nil {
		return err
	}
	query := strings.Join(flags.Args(), " ")
	if query == "" {
		query = "How do plants make food from sunlight?"
	}
	ctx := context.Background()

	embedder, err := sieve.NewEmbedder(*model)
	if err != nil {
		return err
	}
	defer embedder.Close()
	// One call for all documents: the model batches them itself.
	docVectors, err := embedder.Embed(ctx, documents)
	if err != nil {
		return err
	}
	queryVector, err := embedder.Embed(ctx, []string{query})
	if err != nil {
		return err
	}

	type match struct {
		doc    int
		cosine float64
	}
	matches := make([]match, len(documents))
	for i, v := range docVectors {
		matches[i] = match{i, cosine(queryVector[0], v)}
	}
	sort.SliceStable(matches, func(a, b int) bool { return matches[a].cosine > matches[b].cosine })
	matches = matches[:min(*top, len(matches))]

	fmt.Fprintf(out, "query: %s\n\nbest %d of %d documents by cosine similarity:\n", query, len(matches), len(documents))
	candidates := make([]string, len(matches))
	for i, m := range matches {
		candidates[i] = documents[m.doc]
		fmt.Fprintf(out, "%3d. %.4f  %s\n", i+1, m.cosine, documents[m.doc])
	}

	ce, err := sieve.NewReranker(*reranker)
	if err != nil {
		return err
	}
	defer ce.Close()
	ranked, err := ce.Rerank(ctx, query, candidates, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nreranked by %s:\n", filepath.Base(*reranker))
	for i, r := range ranked {
		fmt.Fprintf(out, "%3d. %.4f  %s  (cosine rank %d)\n", i+1, r.Score, candidates[r.Index], r.Index+1)
	}
	return nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func defaultReranker() string {
	if dir := os.Getenv("SIEVE_FIXTURES_DIR"); dir != "" {
		return filepath.Join(dir, "cross-encoder-minilm-l6")
	}
	return findUp(filepath.Join("build", "fixtures", "cross-encoder-minilm-l6"))
}

// findUp returns rel below the nearest folder, from the working directory
// upwards, that has it; else rel itself, for the error message to name.
func findUp(rel string) string {
	dir, err := os.Getwd()
	if err != nil {
		return rel
	}
	for {
		path := filepath.Join(dir, rel)
		if _, err := os.Stat(path); err == nil {
			return path
		} else if !errors.Is(err, os.ErrNotExist) {
			return rel
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return rel
		}
		dir = parent
	}
}
