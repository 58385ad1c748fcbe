package sieve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// threeLabels is a random-weight NLI-style classifier with the labels
// contradiction, entailment and neutral.
func threeLabels(t testing.TB) string {
	return requireDir(t, filepath.Join(fixturesDir(t), "cross-encoder-tiny-3labels"), "fixture cross-encoder-tiny-3labels")
}

var threeLabelNames = []string{"contradiction", "entailment", "neutral"}

// classifyTexts are also the premises of classifyPairs: an empty text, a
// NUL byte, multi-byte UTF-8 and one beyond the model's maximum length.
func classifyTexts() []string {
	return []string{
		"A man is eating pizza.",
		"The stock market fell sharply on Tuesday.",
		"",
		"Héllo wörld, ça va?",
		"東京は日本の首都です。",
		"NUL\x00inside",
		strings.Repeat("A very long sentence that goes on and on, ", 60),
		"x",
		"Pizza 🍕 for dinner",
	}
}

func classifyPairs() [][2]string {
	hypotheses := []string{
		"A person eats food.",
		"Stocks went up.",
		"Nothing.",
		"",
		"Tokyo is in Japan.",
		"NUL\x00again",
		"Short.",
		strings.Repeat("and another hypothesis ", 40),
		"Someone has dinner.",
	}
	pairs := make([][2]string, len(hypotheses))
	for i, text := range classifyTexts() {
		pairs[i] = [2]string{text, hypotheses[i]}
	}
	return pairs
}

// cliClassify classifies lines with `sieve classify`: each input's labels,
// best first.
func cliClassify(t testing.TB, model string, lines []string, args ...string) [][]LabelScore {
	t.Helper()
	out := runCLI(t, lines, append([]string{"classify", "--model", model}, args...)...)
	dec := json.NewDecoder(bytes.NewReader(out))
	var results [][]LabelScore
	for {
		var line []struct {
			Label string  `json:"label"`
			Score float32 `json:"score"`
		}
		if err := dec.Decode(&line); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("sieve classify output: %v\n%s", err, out)
		}
		row := make([]LabelScore, len(line))
		for i, l := range line {
			row[i] = LabelScore(l)
		}
		results = append(results, row)
	}
	if len(results) != len(lines) {
		t.Fatalf("sieve classify wrote %d lines for %d inputs", len(results), len(lines))
	}
	return results
}

// requireSameLabelScores fails unless got and want hold the same labels in
// the same order with the same scores, bit for bit.
func requireSameLabelScores(t testing.TB, what string, got, want [][]LabelScore) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d inputs, want %d", what, len(got), len(want))
	}
	for i := range want {
		same := len(got[i]) == len(want[i])
		for j := 0; same && j < len(want[i]); j++ {
			same = got[i][j].Label == want[i][j].Label &&
				math.Float32bits(got[i][j].Score) == math.Float32bits(want[i][j].Score)
		}
		if !same {
			t.Fatalf("%s: input %d is %v, the command line says %v", what, i, got[i], want[i])
		}
	}
}

// Classify and ClassifyPairs give the command line's labels, order and
// scores bit for bit (same batches: same inputs, same batch size), activated
// and raw.
func TestClassifyMatchesCLI(t *testing.T) {
	model := threeLabels(t)
	r := newReranker(t, model, WithBatchSize(4))
	ctx := context.Background()
	if got := r.Labels(); !slices.Equal(got, threeLabelNames) {
		t.Fatalf("Labels() = %q, want %q", got, threeLabelNames)
	}
	if info := r.Info(); info.Dimension != len(threeLabelNames) {
		t.Fatalf("Info().Dimension = %d, want %d", info.Dimension, len(threeLabelNames))
	}

	texts := classifyTexts()
	pairs := classifyPairs()
	lines := make([]string, len(pairs))
	for i, p := range pairs {
		lines[i] = p[0] + "\t" + p[1]
	}
	for _, raw := range []bool{false, true} {
		args := []string{"--batch-size", "4"}
		var opts []ClassifyOption
		if raw {
			args = append(args, "--raw-scores")
			opts = append(opts, WithRawScores())
		}
		got, err := r.Classify(ctx, texts, opts...)
		if err != nil {
			t.Fatal(err)
		}
		requireSameLabelScores(t, "Classify", got, cliClassify(t, model, texts, args...))

		gotPairs, err := r.ClassifyPairs(ctx, pairs, opts...)
		if err != nil {
			t.Fatal(err)
		}
		requireSameLabelScores(t, "ClassifyPairs", gotPairs, cliClassify(t, model, lines, append(args, "--pairs")...))
		if slices.EqualFunc(got, gotPairs, slices.Equal) {
			t.Fatal("ClassifyPairs gave the scores of the first texts alone")
		}
	}
}

func TestClassifyEdgeCasesAndErrors(t *testing.T) {
	r := newReranker(t, threeLabels(t))
	ctx := context.Background()

	if got, err := r.Classify(ctx, nil); err != nil || len(got) != 0 {
		t.Fatalf("Classify of no texts = %v, %v", got, err)
	}
	if got, err := r.ClassifyPairs(ctx, nil, WithRawScores()); err != nil || len(got) != 0 {
		t.Fatalf("ClassifyPairs of no pairs = %v, %v", got, err)
	}

	// Each input's slice is its own: appending to one leaves the next intact.
	got, err := r.Classify(ctx, []string{"one", "two"})
	if err != nil {
		t.Fatal(err)
	}
	second := slices.Clone(got[1])
	_ = append(got[0], LabelScore{Label: "extra"})
	if !slices.Equal(got[1], second) {
		t.Fatal("appending to one input's labels changed the next input's")
	}
	// Probabilities of a softmax: they sum to one, and the best label is the
	// one with the largest logit.
	raw, err := r.Classify(ctx, []string{"one", "two"}, WithRawScores())
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		var sum float64
		for _, l := range got[i] {
			sum += float64(l.Score)
		}
		if math.Abs(sum-1) > 1e-5 || got[i][0].Label != raw[i][0].Label {
			t.Fatalf("input %d: probabilities %v (sum %v), logits %v", i, got[i], sum, raw[i])
		}
	}

	_, err = r.ClassifyPairs(ctx, [][2]string{{"ok", "ok"}, {"ok", "bad \xc3"}})
	if se := asError(t, err, CodeInvalidInput); se.InputIndex != 1 {
		t.Fatalf("ClassifyPairs with an invalid second text: InputIndex %d, want 1 (%v)", se.InputIndex, err)
	}
	_, err = r.Classify(ctx, []string{"ok", "bad \xc3", "ok"})
	if se := asError(t, err, CodeInvalidInput); se.InputIndex != 1 {
		t.Fatalf("Classify of an invalid text: InputIndex %d, want 1 (%v)", se.InputIndex, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Classify(cancelled, classifyTexts()); err != context.Canceled {
		t.Fatalf("Classify with a cancelled context: %v", err)
	}

	// The labels were read at load time: Labels outlives Close, Classify does not.
	r.Close()
	if got := r.Labels(); !slices.Equal(got, threeLabelNames) {
		t.Fatalf("Labels() after Close = %q", got)
	}
	if _, err := r.ClassifyPairs(ctx, classifyPairs()); !errors.Is(err, ErrClosed) {
		t.Fatalf("ClassifyPairs after Close: %v", err)
	}
}

// A one-label cross-encoder classifies too: its one label through a
// sigmoid, as sieve.h says; and a registry's Reranker knows its labels.
func TestClassifyOneLabelAndRegistry(t *testing.T) {
	ctx := context.Background()
	reg, err := OpenRegistry(fixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	crossEncoder(t)
	r, err := reg.Reranker("cross-encoder-minilm-l6")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Labels(); !slices.Equal(got, []string{"LABEL_0"}) {
		t.Fatalf("Labels() of a one-label cross-encoder without id2label = %q", got)
	}
	pairs := [][2]string{{rerankQuery, rerankDocs()[0]}, {rerankQuery, rerankDocs()[1]}}
	got, err := r.ClassifyPairs(ctx, pairs)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := r.ClassifyPairs(ctx, pairs, WithRawScores())
	if err != nil {
		t.Fatal(err)
	}
	for i := range pairs {
		sigmoid := 1 / (1 + math.Exp(-float64(raw[i][0].Score)))
		if len(got[i]) != 1 || got[i][0].Label != "LABEL_0" || math.Abs(float64(got[i][0].Score)-sigmoid) > 1e-6 {
			t.Fatalf("pair %d: probability %v, logit %v", i, got[i], raw[i])
		}
	}

	threeLabels(t)
	nli, err := reg.Reranker("cross-encoder-tiny-3labels")
	if err != nil {
		t.Fatal(err)
	}
	defer nli.Close()
	if got := nli.Labels(); !slices.Equal(got, threeLabelNames) {
		t.Fatalf("a registry Reranker's Labels() = %q", got)
	}
}
