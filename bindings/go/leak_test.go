package sieve

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sieve-embed/sieve/bindings/go/internal/mallocstats"
)

// rssBytes is the process's resident set size (VmRSS).
func rssBytes(t testing.TB) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status to read memory from: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS line %q: %v", s.Text(), err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// settledRSS collects garbage and returns the Go heap's free pages to the
// system before reading RSS, so that what remains is live memory, in Go or C.
func settledRSS(t testing.TB) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return rssBytes(t)
}

// Issue point 6: 10,000 embed calls of one short text must not grow memory.
//
// The model is the tiny fixture (32 dimensions, about 0.1 ms a call) rather
// than all-MiniLM-L6-v2 (several ms a call): what could leak is what every
// call allocates around inference (the pinned text array, the C status, the
// output buffer, the C++ library's per-call vectors), whose size does not
// depend on the model, and the tiny model keeps the test at a few seconds.
// Each iteration also tokenizes (an encoding allocated and destroyed in C)
// and makes a failing call (a status with a message allocated and destroyed),
// so those paths are covered too. Garbage is collected every 1,000 calls.
//
// Three measures, each before and after the 10,000 iterations (after a
// 500-iteration warm-up that fills ONNX Runtime's and the allocators' pools):
//
//   - malloc'd bytes in use (glibc's mallinfo2): exactly what C and C++ keep
//     allocated. It moves by under 16 KiB over 40,000 iterations here; the
//     smallest thing a call allocates in C is a status (its struct and
//     message, about 150 bytes), whose leak would add 1.5 MB. Bound: 256 KiB,
//     which any leak of 26 bytes or more per iteration exceeds.
//   - Go heap in use after a collection: what this binding keeps reachable
//     (moves by under 16 KiB here). Bound: 256 KiB, likewise.
//   - VmRSS, the measure and a check of the other two from outside.
//     It includes the race detector's own memory, which grows by about 3 MiB
//     here (under 1 MiB without -race) and is not a leak. Bound: 8 MiB, which
//     a leak of an all-MiniLM-L6-v2 vector (1.5 KB) per call, kept in C or
//     in Go, would exceed twice over.
func TestEmbedDoesNotLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: 10,000 iterations")
	}
	e := newEmbedder(t, tinyEmbedder(t), WithThreads(1))
	tok := e.Tokenizer()
	ctx := context.Background()
	// glibc gives each OS thread that allocates its own arena; a goroutine
	// wandering across threads would spread the C allocations over arenas
	// that each grow once, which is noise here, not a leak.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	texts := []string{"a short text to embed"}
	invalid := []string{"invalid \xff utf-8"}
	iterate := func(n int) {
		for i := range n {
			if _, err := e.Embed(ctx, texts); err != nil {
				t.Fatal(err)
			}
			if _, err := tok.Tokenize(texts[0]); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Embed(ctx, invalid); !isCode(err, CodeInvalidInput) {
				t.Fatalf("embedding invalid UTF-8: %v", err)
			}
			if i%1000 == 999 {
				runtime.GC()
			}
		}
	}
	type usage struct{ rss, malloc, heap int64 }
	measure := func() usage {
		rss := settledRSS(t) // collects garbage first
		malloc, ok := mallocstats.InUse()
		if !ok {
			malloc = 0 // not glibc: the RSS bound still applies
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return usage{rss, int64(malloc), int64(ms.HeapAlloc)}
	}

	iterate(500)
	before := measure()
	const iterations = 10_000
	iterate(iterations)
	after := measure()
	t.Logf("growth over %d iterations: RSS %+d KiB, malloc in use %+d bytes, Go heap %+d bytes",
		iterations, (after.rss-before.rss)>>10, after.malloc-before.malloc, after.heap-before.heap)
	for _, c := range []struct {
		what          string
		growth, bound int64
	}{
		{"malloc'd memory in use", after.malloc - before.malloc, 256 << 10},
		{"Go heap in use", after.heap - before.heap, 256 << 10},
		{"VmRSS", after.rss - before.rss, 8 << 20},
	} {
		if c.growth > c.bound {
			t.Errorf("%s grew by %d KiB over %d iterations (%d bytes each); the bound is %d KiB",
				c.what, c.growth>>10, iterations, c.growth/iterations, c.bound>>10)
		}
	}
}

// The cleanup is a safety net: handles dropped without Close are still freed
// once collected.
func TestUnclosedHandlesAreCollected(t *testing.T) {
	file := filepath.Join(tinyEmbedder(t), "tokenizer.json")
	model := tinyEmbedder(t)
	baseline := liveHandles.Load()
	const n = 10
	for range n {
		tok, err := LoadTokenizer(file)
		if err != nil {
			t.Fatal(err)
		}
		// A model's tokenizer refers to the model's handle: it must keep the
		// model alive after the Embedder itself is dropped.
		borrowed := func() *Tokenizer {
			e, err := NewEmbedder(model)
			if err != nil {
				t.Fatal(err)
			}
			return e.Tokenizer()
		}()
		runtime.GC()
		if _, err := borrowed.Tokenize("still usable"); err != nil {
			t.Fatalf("the tokenizer of a dropped Embedder: %v", err)
		}
		if _, err := tok.Tokenize("used once"); err != nil {
			t.Fatal(err)
		}
	}
	if live := liveHandles.Load() - baseline; live > 2*n {
		t.Fatalf("%d handles live after making %d", live, 2*n)
	}
	// Cleanups run on their own goroutine after the collection that finds
	// the handle unreachable.
	for deadline := time.Now().Add(10 * time.Second); liveHandles.Load() > baseline; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d dropped handles not freed after 10 s of collections", liveHandles.Load()-baseline, 2*n)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
