// npycmp compares two float32 .npy matrices row by row and prints one JSON
// line: rows, dim, max_abs_diff, min_cosine, and the row of the minimum cosine
// (with -peer NAME, also "peer": NAME).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"

	"sieve/bench/go_diy/internal/harness"
)

var peer = flag.String("peer", "", "name to report in the \"peer\" field")

func main() {
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: npycmp [-peer NAME] A.npy B.npy")
		os.Exit(2)
	}
	a, err := harness.ReadNpy(flag.Arg(0))
	if err == nil {
		var b [][]float32
		if b, err = harness.ReadNpy(flag.Arg(1)); err == nil {
			err = compare(a, b)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "npycmp:", err)
		os.Exit(1)
	}
}

func compare(a, b [][]float32) error {
	if len(a) != len(b) || len(a) == 0 || len(a[0]) != len(b[0]) {
		return fmt.Errorf("shapes differ or are empty: %d x %d and %d x %d", len(a), width(a), len(b), width(b))
	}
	maxAbs, minCos, minRow := 0.0, math.Inf(1), -1
	for i := range a {
		var dot, na, nb float64
		for j := range a[i] {
			x, y := float64(a[i][j]), float64(b[i][j])
			maxAbs = math.Max(maxAbs, math.Abs(x-y))
			dot, na, nb = dot+x*y, na+x*x, nb+y*y
		}
		if c := dot / math.Sqrt(na*nb); c < minCos {
			minCos, minRow = c, i
		}
	}
	r := map[string]any{
		"a": flag.Arg(0), "b": flag.Arg(1), "rows": len(a), "dim": len(a[0]),
		"max_abs_diff": maxAbs, "min_cosine": minCos, "min_cosine_row": minRow,
	}
	if *peer != "" {
		r["peer"] = *peer
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

func width(m [][]float32) int {
	if len(m) == 0 {
		return 0
	}
	return len(m[0])
}
