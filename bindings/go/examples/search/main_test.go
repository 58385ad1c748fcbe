package main

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	sieve "github.com/sieve-embed/sieve/bindings/go"
)

var resultLine = regexp.MustCompile(`^\s*\d+\. -?\d+\.\d{4}  (.*?)(  \(cosine rank \d+\))?$`)

// sections splits the program's output into its two ranked lists.
func sections(t *testing.T, out string) (cosine, reranked []string) {
	t.Helper()
	parts := strings.Split(out, "\nreranked by ")
	if len(parts) != 2 {
		t.Fatalf("output has no reranked section:\n%s", out)
	}
	for i, part := range parts {
		for _, line := range strings.Split(part, "\n") {
			if m := resultLine.FindStringSubmatch(line); m != nil {
				if i == 0 {
					cosine = append(cosine, m[1])
				} else {
					reranked = append(reranked, m[1])
				}
			}
		}
	}
	return cosine, reranked
}

func requireModels(t *testing.T) {
	for _, dir := range []string{findUp("models/all-MiniLM-L6-v2"), defaultReranker()} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("model folder %s not found (build it with scripts/bootstrap.sh)", dir)
		}
	}
}

// The real all-MiniLM-L6-v2 must put the document that answers the query
// first; the (random) cross-encoder must rerank exactly those ten.
func TestSearch(t *testing.T) {
	requireModels(t)
	for query, best := range map[string]string{
		"":                             "Photosynthesis", // the default query
		"which planet is the biggest?": "Jupiter",
		"how is coffee made":           "Espresso",
	} {
		var args []string
		if query != "" {
			args = strings.Fields(query)
		}
		var out bytes.Buffer
		if err := run(args, &out); err != nil {
			t.Fatal(err)
		}
		cosine, reranked := sections(t, out.String())
		if len(cosine) != 10 || len(reranked) != 10 {
			t.Fatalf("query %q: %d cosine and %d reranked results, want 10 each:\n%s", query, len(cosine), len(reranked), out.String())
		}
		if !strings.HasPrefix(cosine[0], best) {
			t.Errorf("query %q: best match %q, want the one about %s", query, cosine[0], best)
		}
		sorted := append([]string(nil), reranked...)
		sort.Strings(sorted)
		want := append([]string(nil), cosine...)
		sort.Strings(want)
		if strings.Join(sorted, "\n") != strings.Join(want, "\n") {
			t.Errorf("query %q: the reranked documents are not the ten best by cosine:\n%s", query, out.String())
		}
	}
}

func TestSearchFlags(t *testing.T) {
	requireModels(t)
	var out bytes.Buffer
	if err := run([]string{"-top", "3", "bread"}, &out); err != nil {
		t.Fatal(err)
	}
	if cosine, reranked := sections(t, out.String()); len(cosine) != 3 || len(reranked) != 3 {
		t.Fatalf("-top 3 gave %d and %d results:\n%s", len(cosine), len(reranked), out.String())
	}
	err := run([]string{"-model", t.TempDir() + "/missing"}, &out)
	if !errors.Is(err, sieve.ErrNotFound) {
		t.Fatalf("a missing model folder: %v", err)
	}
}
