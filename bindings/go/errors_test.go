package sieve

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// asError returns err as an *Error, failing unless it is one with the code.
func asError(t testing.TB, err error, code Code) *Error {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("got %v (%T), want a %s *Error", err, err, code)
	}
	if se.Code != code || se.Message == "" {
		t.Fatalf("got %v (code %s), want a %s error with a message", err, se.Code, code)
	}
	return se
}

func isCode(err error, code Code) bool {
	var se *Error
	return errors.As(err, &se) && se.Code == code
}

func TestCodeNamesMatchC(t *testing.T) {
	for c := CodeOK; c <= CodeInternal; c++ {
		if c.String() != cCodeName(c) {
			t.Errorf("Code(%d).String() = %q, sieve_status_code_name says %q", int(c), c.String(), cCodeName(c))
		}
	}
	if got := Code(99).String(); got != "Code(99)" {
		t.Errorf("unknown code prints as %q", got)
	}
}

func TestErrorIs(t *testing.T) {
	err := error(&Error{Code: CodeNotFound, Message: "no folder x", InputIndex: -1})
	wrapped := errors.Join(errors.New("loading"), err)
	if !errors.Is(wrapped, ErrNotFound) || errors.Is(wrapped, ErrParse) {
		t.Fatal("errors.Is does not match an *Error with the sentinel of its code only")
	}
	// A sentinel does not match an error with a message: errors.Is(ErrNotFound, err) is false.
	if errors.Is(ErrNotFound, err) {
		t.Fatal("a sentinel matches a specific error")
	}
	if got := err.Error(); got != "sieve: not_found: no folder x" {
		t.Fatalf("Error() = %q", got)
	}
}

func TestLoadErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-model")
	_, err := NewEmbedder(missing)
	asError(t, err, CodeNotFound)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no-such-model") {
		t.Fatalf("NewEmbedder of a missing folder: %v", err)
	}
	if _, err := NewReranker(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("NewReranker of a missing folder: %v", err)
	}
	if _, err := LoadTokenizer(filepath.Join(missing, "tokenizer.json")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("LoadTokenizer of a missing file: %v", err)
	}
	if _, err := OpenRegistry(missing); !errors.Is(err, ErrNotFound) {
		t.Fatalf("OpenRegistry of a missing folder: %v", err)
	}

	// Each kind refuses the other's folder.
	_, err = NewEmbedder(crossEncoder(t))
	asError(t, err, CodeWrongKind)
	_, err = NewReranker(tinyEmbedder(t))
	asError(t, err, CodeWrongKind)

	// A NUL byte would cut a C path short, silently naming another file.
	_, err = NewEmbedder(tinyEmbedder(t) + "\x00ignored")
	asError(t, err, CodeInvalidArgument)

	// Bad options are caught before or by the library, never ignored.
	model := tinyEmbedder(t)
	for name, opt := range map[string]Option{
		"negative threads":    WithThreads(-1),
		"too many threads":    WithThreads(1000000),
		"threads past int32":  WithThreads(1 << 40),
		"negative max length": WithMaxLength(-3),
		"negative batch size": WithBatchSize(-1),
		"negative dimensions": WithDimensions(-8),
		"unknown pooling":     WithPooling("median"),
		"unknown provider":    WithProviders("no-such-provider"),
		"unknown prompt":      WithPromptName("no-such-prompt"),
		"NUL in pooling":      WithPooling("mean\x00"),
		"NUL in a provider":   WithProviders("cpu", "cu\x00da"),
	} {
		if _, err := NewEmbedder(model, opt); !isCode(err, CodeInvalidArgument) {
			t.Errorf("%s: got %v, want an invalid-argument error", name, err)
		}
	}
}

// After Close, every call fails with ErrClosed (no call reaches C with a
// freed handle); Close itself may be repeated.
func TestUseAfterClose(t *testing.T) {
	ctx := context.Background()
	e := newEmbedder(t, tinyEmbedder(t))
	tok := e.Tokenizer()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	closed := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: got %v, want ErrClosed", what, err)
		}
	}
	_, err := e.Embed(ctx, []string{"text"})
	closed("Embed", err)
	_, err = e.Embed(ctx, nil)
	closed("Embed of nothing", err)
	_, err = e.EmbedBatch(ctx, []string{"text"}, 1)
	closed("EmbedBatch", err)
	_, err = e.EmbedBatch(ctx, nil, 1)
	closed("EmbedBatch of nothing", err)
	_, err = e.Tokenize("text")
	closed("Embedder.Tokenize", err)
	_, err = tok.Tokenize("text")
	closed("a model tokenizer taken before Close", err)
	_, err = e.Tokenizer().Decode([]uint32{1}, false)
	closed("Decode", err)
	_, err = tok.IDToToken(1)
	closed("IDToToken", err)
	if tok.VocabSize() != 0 {
		t.Error("VocabSize after Close is not 0")
	}
	if e.Dimension() != 32 || e.Info().Folder == "" {
		t.Error("Dimension and Info are not kept after Close")
	}

	r := newReranker(t, crossEncoder(t))
	r.Close()
	r.Close()
	_, err = r.Score(ctx, "q", []string{"d"})
	closed("Score", err)
	_, err = r.Rerank(ctx, "q", []string{"d"}, 1)
	closed("Rerank", err)
	_, err = r.Tokenize("q", "d")
	closed("Reranker.Tokenize", err)

	lt := loadTokenizer(t, filepath.Join(tinyEmbedder(t), "tokenizer.json"))
	lt.Close()
	lt.Close()
	_, err = lt.TokenizePair("a", "b")
	closed("LoadTokenizer's Tokenize", err)
}
