package sieve

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// liveHandles counts the C objects this package holds, so that tests can see
// the garbage collector's safety net free the ones never closed.
var liveHandles atomic.Int64

// handle owns one C object (a model, tokenizer or registry) and keeps Close
// from freeing it under a call in flight.
//
// Calls take the read lock for the duration of the C call, so any number run
// at once (the C objects are thread-safe); Close takes the write lock, so it
// waits for them, and calls after it find the handle closed and fail with ErrClosed
// instead of passing a freed pointer to C.
type handle[P comparable] struct {
	mu      sync.RWMutex
	ptr     P // a C pointer type; valid while open
	open    bool
	destroy func(P)
	cleanup runtime.Cleanup
	what    string // for messages: "Embedder models/all-MiniLM-L6-v2"
}

func newHandle[P comparable](ptr P, destroy func(P), what string) *handle[P] {
	h := &handle[P]{ptr: ptr, open: true, destroy: destroy, what: what}
	// The safety net for a handle never closed. It is attached to the handle,
	// not to the Embedder (or Reranker, ...) wrapping it, because other Go
	// values (a model's Tokenizer) share the handle: the C object must
	// outlive them all. A method holds h (its deferred release refers to it)
	// until its C call returns, so the cleanup cannot run under a call. Its
	// argument is the C pointer, which does not keep h reachable.
	h.cleanup = runtime.AddCleanup(h, func(p P) {
		destroy(p)
		liveHandles.Add(-1)
	}, ptr)
	liveHandles.Add(1)
	return h
}

// acquire returns the C object with the read lock held; call release once
// the C call has returned. After Close it returns an error wrapping ErrClosed.
func (h *handle[P]) acquire() (P, error) {
	h.mu.RLock()
	if !h.open {
		h.mu.RUnlock()
		var none P
		return none, fmt.Errorf("%w (%s)", ErrClosed, h.what)
	}
	return h.ptr, nil
}

func (h *handle[P]) release() { h.mu.RUnlock() }

// enter is acquire for a call that takes a context: a context already done
// gives its error instead.
func (h *handle[P]) enter(ctx context.Context) (P, error) {
	if err := ctx.Err(); err != nil {
		var none P
		return none, err
	}
	return h.acquire()
}

// close frees the C object once; later calls do nothing.
func (h *handle[P]) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open {
		h.open = false
		h.cleanup.Stop()
		h.destroy(h.ptr)
		liveHandles.Add(-1)
	}
}
