package sieve

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func loadTokenizer(t testing.TB, path string) *Tokenizer {
	t.Helper()
	tok, err := LoadTokenizer(path)
	if err != nil {
		t.Fatalf("LoadTokenizer(%s): %v", path, err)
	}
	t.Cleanup(func() { tok.Close() })
	return tok
}

func tokenizeTexts() []string {
	texts := testTexts()
	// A tab separates the two texts of a pair on the command line.
	for i := range texts {
		texts[i] = strings.ReplaceAll(texts[i], "\t", " ")
	}
	return texts
}

// requireSameEncoding compares an Encoding with the command line's.
func requireSameEncoding(t testing.TB, what string, got *Encoding, want cliEncoding) {
	t.Helper()
	offsets := make([][2]int, len(got.Offsets))
	for i, o := range got.Offsets {
		offsets[i] = [2]int{o.Begin, o.End}
	}
	same := reflect.DeepEqual(got.IDs, want.IDs) && reflect.DeepEqual(got.TypeIDs, want.TypeIDs) &&
		reflect.DeepEqual(got.AttentionMask, want.AttentionMask) &&
		reflect.DeepEqual(got.SpecialTokensMask, want.SpecialTokensMask) && reflect.DeepEqual(offsets, want.ByteOffsets)
	if !same || got.Len() != len(want.IDs) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// A tokenizer.json loaded alone behaves as the command line's
// `sieve tokenize --tokenizer FILE`: with the file's own padding (to 128 for
// all-MiniLM-L6-v2) and truncation.
func TestTokenizeMatchesCLI(t *testing.T) {
	file := filepath.Join(miniLM(t), "tokenizer.json")
	texts := tokenizeTexts()
	for _, source := range []string{file, filepath.Dir(file)} {
		tok := loadTokenizer(t, source)
		want := cliTokenize(t, texts, "--tokenizer", file)
		for i, text := range texts {
			got, err := tok.Tokenize(text)
			if err != nil {
				t.Fatal(err)
			}
			requireSameEncoding(t, fmt.Sprintf("Tokenize(%q)", text), got, want[i])
		}
	}

	tok := loadTokenizer(t, file)
	want := cliTokenize(t, texts, "--tokenizer", file, "--no-special-tokens")
	for i, text := range texts {
		got, err := tok.Tokenize(text, WithoutSpecialTokens())
		if err != nil {
			t.Fatal(err)
		}
		requireSameEncoding(t, fmt.Sprintf("Tokenize(%q) without special tokens", text), got, want[i])
	}

	// Pairs: the command line reads them as "first<TAB>second".
	var pairs []string
	for i := 0; i+1 < len(texts); i += 2 {
		pairs = append(pairs, texts[i]+"\t"+texts[i+1])
	}
	want = cliTokenize(t, pairs, "--tokenizer", file, "--pair")
	for i, line := range pairs {
		a, b, _ := strings.Cut(line, "\t")
		got, err := tok.TokenizePair(a, b)
		if err != nil {
			t.Fatal(err)
		}
		requireSameEncoding(t, fmt.Sprintf("TokenizePair(%q, %q)", a, b), got, want[i])
	}
}

// IDToToken gives the token strings the command line prints.
func TestIDToTokenMatchesCLI(t *testing.T) {
	file := filepath.Join(miniLM(t), "tokenizer.json")
	tok := loadTokenizer(t, file)
	texts := tokenizeTexts()
	for i, want := range cliTokenize(t, texts, "--tokenizer", file) {
		for j, id := range want.IDs {
			got, err := tok.IDToToken(id)
			if err != nil || got != want.Tokens[j] {
				t.Fatalf("IDToToken(%d) in %q = %q, %v; the command line says %q", id, texts[i], got, err, want.Tokens[j])
			}
		}
	}
	if n := tok.VocabSize(); n != 30522 {
		t.Fatalf("VocabSize() = %d; bert-base-uncased's vocabulary has 30522 entries", n)
	}
	if _, err := tok.IDToToken(1 << 30); !isCode(err, CodeInvalidArgument) {
		t.Fatalf("IDToToken of an id beyond the vocabulary: %v", err)
	}
}

// A model's tokenizer is the one the model runs: with the model's truncation
// (256 tokens for all-MiniLM-L6-v2) and no padding, as the command line
// configured so.
func TestModelTokenizerMatchesCLI(t *testing.T) {
	model := miniLM(t)
	e := newEmbedder(t, model)
	texts := tokenizeTexts()
	maxLength := strconv.Itoa(e.Info().MaxLength)
	want := cliTokenize(t, texts, "--model", model, "--no-padding", "--max-length", maxLength)
	for i, text := range texts {
		got, err := e.Tokenize(text)
		if err != nil {
			t.Fatal(err)
		}
		requireSameEncoding(t, fmt.Sprintf("Embedder.Tokenize(%q)", text), got, want[i])
	}

	ce := crossEncoder(t)
	r := newReranker(t, ce)
	var pairs []string
	for _, doc := range rerankDocs() {
		pairs = append(pairs, rerankQuery+"\t"+doc)
	}
	maxLength = strconv.Itoa(r.Info().MaxLength)
	want = cliTokenize(t, pairs, "--model", ce, "--pair", "--no-padding", "--max-length", maxLength)
	for i, doc := range rerankDocs() {
		got, err := r.Tokenize(rerankQuery, doc)
		if err != nil {
			t.Fatal(err)
		}
		requireSameEncoding(t, fmt.Sprintf("Reranker.Tokenize(%q)", doc), got, want[i])
	}
}

// Decoding reverses encoding for lower-case text whose spacing WordPiece's
// decoder restores; special tokens are kept or skipped on request.
func TestDecode(t *testing.T) {
	tok := loadTokenizer(t, filepath.Join(miniLM(t), "tokenizer.json"))
	for _, text := range []string{"hello, world!", "the quick brown fox jumps over the lazy dog.", "tokenization"} {
		enc, err := tok.Tokenize(text, WithoutSpecialTokens())
		if err != nil {
			t.Fatal(err)
		}
		got, err := tok.Decode(enc.IDs, true)
		if err != nil || got != text {
			t.Fatalf("Decode(Tokenize(%q)) = %q, %v", text, got, err)
		}
	}
	enc, err := tok.Tokenize("hello")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tok.Decode(enc.IDs[:3], false)
	if err != nil || got != "[CLS] hello [SEP]" {
		t.Fatalf("Decode with special tokens = %q, %v", got, err)
	}
	if got, err := tok.Decode(nil, true); err != nil || got != "" {
		t.Fatalf("Decode(nil) = %q, %v", got, err)
	}
}

// Offsets are byte offsets into the Go string, so slicing the text with them
// gives the token's text.
func TestTokenizeOffsetsSliceText(t *testing.T) {
	tok := loadTokenizer(t, filepath.Join(miniLM(t), "tokenizer.json"))
	text := "Héllo wörld 東京"
	enc, err := tok.Tokenize(text, WithoutSpecialTokens())
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	for i, o := range enc.Offsets {
		if enc.AttentionMask[i] == 1 { // not padding
			pieces = append(pieces, text[o.Begin:o.End])
		}
	}
	if got := strings.Join(pieces, "|"); got != "Héllo|wörld|東|京" {
		t.Fatalf("token texts %q", got)
	}
}
