package sieve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Many goroutines embedding on one Embedder get exactly what sequential calls
// get. Each call uses batch size 1, so a text's vector cannot depend on which
// other texts share its call, only on the model being used safely.
func TestConcurrentEmbedMatchesSequential(t *testing.T) {
	e := newEmbedder(t, miniLM(t), WithBatchSize(1), WithThreads(1))
	texts := testTexts()
	ctx := context.Background()
	want, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, rounds = 8, 3
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range rounds {
				// Each goroutine takes its own, shifting window of texts.
				start := (g + round) % len(texts)
				window := append(append([]string(nil), texts[start:]...), texts[:start]...)[:5+g]
				got, err := e.Embed(ctx, window)
				if err != nil {
					errs <- err
					return
				}
				for i := range window {
					wantRow := want[(start+i)%len(texts)]
					for j := range wantRow {
						if got[i][j] != wantRow[j] {
							errs <- fmt.Errorf("goroutine %d round %d: text %d differs from the sequential result", g, round, start+i)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Tokenizers and rerankers are shared the same way.
func TestConcurrentTokenizeAndRerank(t *testing.T) {
	r := newReranker(t, crossEncoder(t), WithThreads(1))
	tok := r.Tokenizer()
	ctx := context.Background()
	docs := rerankDocs()
	want, err := r.Score(ctx, rerankQuery, docs)
	if err != nil {
		t.Fatal(err)
	}
	wantEnc, err := tok.TokenizePair(rerankQuery, docs[0])
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var failures atomic.Int32
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				got, err := r.Score(ctx, rerankQuery, docs)
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
					failures.Add(1)
				}
				enc, err := tok.TokenizePair(rerankQuery, docs[0])
				if err != nil || fmt.Sprint(enc) != fmt.Sprint(wantEnc) {
					failures.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d concurrent calls disagreed with the sequential result", n)
	}
}

// Close while other goroutines are embedding: it waits for the calls in
// flight, calls after it fail with ErrClosed, and nothing crashes. Several
// goroutines close at once.
func TestCloseDuringCalls(t *testing.T) {
	e, err := NewEmbedder(tinyEmbedder(t))
	if err != nil {
		t.Fatal(err)
	}
	tok := e.Tokenizer()
	ctx := context.Background()
	var succeeded atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var err error
				if g%2 == 0 {
					_, err = e.Embed(ctx, []string{"text one", "text two"})
				} else {
					_, err = tok.Tokenize("text three")
				}
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				succeeded.Add(1)
			}
		}()
	}
	// Let the callers get going before pulling the model from under them.
	for deadline := time.Now().Add(10 * time.Second); succeeded.Load() < 200 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	var closers sync.WaitGroup
	for range 4 {
		closers.Add(1)
		go func() {
			defer closers.Done()
			if err := e.Close(); err != nil {
				errs <- err
			}
		}()
	}
	closers.Wait()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if succeeded.Load() < 200 {
		t.Fatalf("only %d calls succeeded before Close", succeeded.Load())
	}
}
