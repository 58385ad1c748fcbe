package sieve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func newEmbedder(t testing.TB, path string, opts ...Option) *Embedder {
	t.Helper()
	e, err := NewEmbedder(path, opts...)
	if err != nil {
		t.Fatalf("NewEmbedder(%s): %v", path, err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// The model sorts a call's texts by length into runs of the batch size, so
// the same texts with the same batch size make the same ONNX Runtime runs as
// the command line's, and must give the same bits.
func TestEmbedMatchesCLI(t *testing.T) {
	model := miniLM(t)
	texts := testTexts()
	e := newEmbedder(t, model, WithBatchSize(4))
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want := cliEmbed(t, model, texts, "--batch-size", "4")
	requireSameBits(t, "Embed", got, want)
	if e.Dimension() != 384 || len(got[0]) != e.Dimension() {
		t.Fatalf("Dimension() = %d, vectors have %d values; all-MiniLM-L6-v2 has 384", e.Dimension(), len(got[0]))
	}
	info := e.Info()
	if info.Kind != KindEmbedding || !info.Normalize || info.Pooling != "mean" || info.MaxLength != 256 ||
		len(info.Providers) == 0 || info.Providers[len(info.Providers)-1] != "cpu" || info.Folder != model {
		t.Fatalf("Info() = %+v", info)
	}
}

// Each option must reach the C library: every one changes the vectors, and
// the command line given the same options must agree bit for bit.
func TestEmbedOptionsMatchCLI(t *testing.T) {
	model := miniLM(t)
	texts := testTexts()[:8]
	cases := []struct {
		opts []Option
		args []string
	}{
		{[]Option{WithNormalize(false)}, []string{"--no-normalize"}},
		{[]Option{WithPooling("cls")}, []string{"--pooling", "cls"}},
		{[]Option{WithMaxLength(5)}, []string{"--max-length", "5"}},
		{[]Option{WithDimensions(64)}, []string{"--dimensions", "64"}},
		{[]Option{WithThreads(1), WithProviders("cpu"), WithStrictProviders()},
			[]string{"--threads", "1", "--provider", "cpu", "--strict-providers"}},
		// A plugin provider (OpenVINO's, which the set-up installs) through the C library.
		{[]Option{WithThreads(1), WithProviders("openvino:precision=f32"), WithStrictProviders()},
			[]string{"--threads", "1", "--provider", "openvino:precision=f32", "--strict-providers"}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			if strings.Contains(strings.Join(c.args, " "), "openvino") {
				if why := pluginUnavailable(t, "openvino"); why != "" {
					t.Skip(why)
				}
			}
			e := newEmbedder(t, model, c.opts...)
			got, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			requireSameBits(t, "Embed", got, cliEmbed(t, model, texts, c.args...))
		})
	}
}

// With one text per ONNX Runtime run, a text's vector does not depend on
// which other texts share its call, so EmbedBatch's chunks must agree with
// the command line bit for bit whatever the chunk size.
func TestEmbedBatchMatchesCLI(t *testing.T) {
	model := miniLM(t)
	texts := testTexts()
	e := newEmbedder(t, model, WithBatchSize(1))
	want := cliEmbed(t, model, texts, "--batch-size", "1")
	ctx := context.Background()
	for _, chunk := range []int{1, 3, 7, len(texts), 0} {
		got, err := e.EmbedBatch(ctx, texts, chunk)
		if err != nil {
			t.Fatal(err)
		}
		requireSameBits(t, "EmbedBatch chunk "+strconv.Itoa(chunk), got, want)
	}

	var starts []int
	var streamed [][]float32
	err := e.EmbedChunks(ctx, texts, 6, func(start int, vectors [][]float32) error {
		starts = append(starts, start)
		streamed = append(streamed, vectors...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(starts) != "[0 6 12 18]" {
		t.Fatalf("EmbedChunks chunk starts %v for %d texts in chunks of 6", starts, len(texts))
	}
	requireSameBits(t, "EmbedChunks", streamed, want)
}

func TestEmbedEmpty(t *testing.T) {
	e := newEmbedder(t, tinyEmbedder(t))
	ctx := context.Background()
	for name, embed := range map[string]func() ([][]float32, error){
		"Embed":      func() ([][]float32, error) { return e.Embed(ctx, nil) },
		"EmbedBatch": func() ([][]float32, error) { return e.EmbedBatch(ctx, []string{}, 4) },
	} {
		got, err := embed()
		if err != nil || len(got) != 0 {
			t.Fatalf("%s of no texts = %v, %v; want no vectors", name, got, err)
		}
	}
	// An empty text is a text like any other: [CLS] [SEP].
	got, err := e.Embed(ctx, []string{""})
	if err != nil || len(got) != 1 || len(got[0]) != e.Dimension() {
		t.Fatalf("Embed of an empty text = %v, %v", got, err)
	}
}

// Invalid UTF-8 is an error naming the text, by its index in the caller's
// slice even when EmbedBatch passed it in a later chunk; with
// WithReplaceInvalidUTF8 it is replaced as the command line replaces it.
func TestEmbedInvalidUTF8(t *testing.T) {
	model := tinyEmbedder(t)
	texts := []string{"fine", "also fine", "still fine", "broken \xff\xfe here", "fine again"}
	e := newEmbedder(t, model)
	ctx := context.Background()
	check := func(what string, err error) {
		t.Helper()
		var se *Error
		if !errors.As(err, &se) || se.Code != CodeInvalidInput || se.InputIndex != 3 {
			t.Fatalf("%s: got %v (%#v), want an invalid-input *Error with InputIndex 3", what, err, se)
		}
		if !errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("%s: errors.Is does not single out ErrInvalidInput for %v", what, err)
		}
	}
	_, err := e.Embed(ctx, texts)
	check("Embed", err)
	_, err = e.EmbedBatch(ctx, texts, 2)
	check("EmbedBatch", err)
	if !strings.Contains(err.Error(), "texts[2:4]") {
		t.Fatalf("EmbedBatch's error does not name the chunk its message counts from: %v", err)
	}

	r := newEmbedder(t, model, WithReplaceInvalidUTF8())
	got, err := r.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	requireSameBits(t, "Embed with replacement", got, cliEmbed(t, model, texts, "--invalid-utf8", "replace"))
}

func TestEmbedContext(t *testing.T) {
	e := newEmbedder(t, tinyEmbedder(t))
	texts := testTexts()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, texts); !errors.Is(err, context.Canceled) {
		t.Fatalf("Embed with a cancelled context: %v", err)
	}
	if _, err := e.EmbedBatch(ctx, texts, 4); !errors.Is(err, context.Canceled) {
		t.Fatalf("EmbedBatch with a cancelled context: %v", err)
	}

	// Cancelled while the first chunk is delivered: no further chunk is embedded.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	err := e.EmbedChunks(ctx, texts, 4, func(start int, vectors [][]float32) error {
		calls++
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Fatalf("EmbedChunks cancelled in the first chunk: %v after %d chunks", err, calls)
	}

	// The callback's own error stops it too.
	stop := errors.New("stop")
	calls = 0
	err = e.EmbedChunks(context.Background(), texts, 4, func(int, [][]float32) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("EmbedChunks whose callback fails: %v after %d chunks", err, calls)
	}
}

// A row is a window of one allocation; appending to it must not spill into
// the next row.
func TestEmbedRowsAreSeparate(t *testing.T) {
	e := newEmbedder(t, tinyEmbedder(t))
	got, err := e.Embed(context.Background(), []string{"one", "two"})
	if err != nil {
		t.Fatal(err)
	}
	second := append([]float32(nil), got[1]...)
	_ = append(got[0], 42)
	requireSameBits(t, "second row after appending to the first", got[1:], [][]float32{second})
}

// WithPromptName reaches the library: a folder whose
// config_sentence_transformers.json defines prompts embeds as the command
// line does with --prompt-name, and differently without it.
func TestEmbedPromptNameMatchesCLI(t *testing.T) {
	model := filepath.Join(t.TempDir(), "with-prompts")
	cloneTree(t, tinyEmbedder(t), model)
	config := filepath.Join(model, "config_sentence_transformers.json")
	os.Remove(config) // a hard link to the fixture's own file must not be written through
	prompts := `{"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": null}`
	if err := os.WriteFile(config, []byte(prompts), 0o644); err != nil {
		t.Fatal(err)
	}
	texts := testTexts()[:6]
	ctx := context.Background()
	e := newEmbedder(t, model, WithPromptName("query"))
	got, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	requireSameBits(t, "Embed with a prompt name", got, cliEmbed(t, model, texts, "--prompt-name", "query"))
	plain, err := newEmbedder(t, model).Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(plain) == fmt.Sprint(got) {
		t.Fatal("the prompt changed nothing")
	}
}
