// The bindings benchmark's loop through the Go binding: the same protocol as
// bench/bindings/embed_loop.cpp (see ../README.md), so that the difference
// from the C++ loop is what the binding costs per call.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	sieve "github.com/sieve-embed/sieve/bindings/go"
)

func main() {
	model := flag.String("model", "", "model folder")
	textsPath := flag.String("texts", "", "one text per line")
	batch := flag.Int("batch", 1, "texts per call")
	calls := flag.Int("calls", 1000, "timed calls")
	warmup := flag.Int("warmup", 50, "untimed calls first")
	threads := flag.Int("threads", 0, "intra-op threads (0: physical cores)")
	flag.Parse()
	if *model == "" || *textsPath == "" || *batch < 1 || *calls < 1 {
		flag.Usage()
		os.Exit(2)
	}
	lines, err := readLines(*textsPath)
	if err != nil {
		fail(err)
	}
	if err := sieve.SetLogLevel("warn"); err != nil {
		fail(err)
	}
	embedder, err := sieve.NewEmbedder(*model, sieve.WithThreads(*threads), sieve.WithBatchSize(*batch))
	if err != nil {
		fail(err)
	}
	defer embedder.Close()

	ctx := context.Background()
	texts := make([]string, *batch)
	seconds := make([]float64, 0, *calls)
	total := 0.0
	var first float32
	for call := 0; call < *warmup+*calls; call++ {
		for j := range texts {
			texts[j] = lines[(call**batch+j)%len(lines)]
		}
		start := time.Now()
		vectors, err := embedder.Embed(ctx, texts)
		elapsed := time.Since(start).Seconds()
		if err != nil {
			fail(err)
		}
		if call >= *warmup {
			seconds = append(seconds, elapsed)
			total += elapsed
		}
		first = vectors[0][0]
	}
	sort.Float64s(seconds)
	out, _ := json.Marshal(map[string]any{
		"impl": "go", "batch": *batch, "calls": *calls,
		"median_ms":       1e3 * percentile(seconds, 50),
		"p99_ms":          1e3 * percentile(seconds, 99),
		"sentences_per_s": float64(*batch**calls) / total,
		"first_value":     first,
	})
	fmt.Println(string(out))
}

// As bench_util.hpp's percentile: linear between the closest ranks.
func percentile(sorted []float64, p float64) float64 {
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(rank)
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (sorted[hi]-sorted[lo])*(rank-float64(lo))
}

func readLines(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var lines []string
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for scanner.Scan() {
		if line := scanner.Text(); line != "" {
			lines = append(lines, line)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s has no lines", path)
	}
	return lines, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "embedloop:", err)
	os.Exit(1)
}
