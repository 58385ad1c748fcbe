package sieve

/*
#include <stdlib.h>
#include "sieve.h"
*/
import "C"

import (
	"unsafe"
)

// Registry serves the model folders under one root, addressed by their path
// below it ("all-MiniLM-L6-v2", "org/model"). A model is loaded on first
// use, once, and shared by every Embedder or Reranker the registry hands out
// for it. It is safe for concurrent use by many goroutines.
type Registry struct {
	h *handle[*C.sieve_registry]
}

// RegistryOption configures OpenRegistry.
type RegistryOption func(*registryConfig)

type registryConfig struct {
	memoryBudget uint64
	shared       bool
	model        []Option
}

// WithMemoryBudget bounds the estimated memory of the loaded models: when a
// load would exceed it, the least recently used models nobody holds are
// evicted. 0 (the default) sets no bound.
func WithMemoryBudget(bytes uint64) RegistryOption {
	return func(c *registryConfig) { c.memoryBudget = bytes }
}

// WithSharedThreadPool runs every model on one process-wide ONNX Runtime
// thread pool, instead of one pool per model. ONNX Runtime has one
// environment per process, so this must be chosen before the process loads
// its first model (by any means); afterwards OpenRegistry fails with
// ErrInvalidArgument.
func WithSharedThreadPool() RegistryOption {
	return func(c *registryConfig) { c.shared = true }
}

// WithModelOptions sets the options every model is loaded with.
func WithModelOptions(opts ...Option) RegistryOption {
	return func(c *registryConfig) { c.model = append(c.model, opts...) }
}

// RegistryEntry describes a model folder of a Registry.
type RegistryEntry struct {
	Name      string // the path below the root, to pass to Embedder or Reranker
	Kind      Kind
	Dimension int // embedding: the vector length; reranker: the number of labels; sparse: the vocabulary size
	MaxLength int
	Loaded    bool
	Providers []string // of a loaded model
	Err       string   // why the folder could not be described, or ""
}

// OpenRegistry opens the models under root; nothing is loaded yet. A root
// that is not a folder gives an error matching ErrNotFound.
func OpenRegistry(root string, opts ...RegistryOption) (*Registry, error) {
	if err := abiCheck(); err != nil {
		return nil, err
	}
	var cfg registryConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	var model config
	for _, opt := range cfg.model {
		opt(&model)
	}
	copts, err := model.toC()
	if err != nil {
		return nil, err
	}
	defer copts.free()
	cRoot, err := cString(root, "registry root")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cRoot))
	var ro C.sieve_registry_options
	C.sieve_registry_options_init(&ro, C.size_t(unsafe.Sizeof(ro)))
	ro.memory_budget = C.uint64_t(cfg.memoryBudget)
	ro.model_options = copts.opts // C memory: ro may then be passed from Go memory
	if cfg.shared {
		ro.shared_thread_pool = 1
	}
	var ptr *C.sieve_registry
	if err := statusError(C.sieve_registry_open(cRoot, &ro, &ptr)); err != nil {
		return nil, err
	}
	return &Registry{h: newHandle(ptr, destroyRegistry, "Registry "+root)}, nil
}

func destroyRegistry(p *C.sieve_registry) { C.sieve_registry_destroy(p) }

// Embedder returns the embedding model name, loading it if needed. Names
// that do not exist under the root, or lead out of it (".." or absolute
// paths), give an error matching ErrNotFound; a cross-encoder or a sparse
// model, ErrWrongKind.
// The Embedder is independent of the Registry: close it on its own; it stays
// usable after the Registry is closed.
func (r *Registry) Embedder(name string) (*Embedder, error) {
	m, err := r.get(name, KindEmbedding)
	if err != nil {
		return nil, err
	}
	return &Embedder{m: m}, nil
}

// SparseEmbedder returns the sparse (SPLADE) model name, loading it if
// needed; see Embedder.
func (r *Registry) SparseEmbedder(name string) (*SparseEmbedder, error) {
	m, err := r.get(name, KindSparse)
	if err != nil {
		return nil, err
	}
	return &SparseEmbedder{m: m}, nil
}

// Reranker returns the cross-encoder name, loading it if needed; see
// Embedder.
func (r *Registry) Reranker(name string) (*Reranker, error) {
	m, err := r.get(name, KindReranker)
	if err != nil {
		return nil, err
	}
	return rerankerOf(m)
}

func (r *Registry) get(name string, kind Kind) (*model, error) {
	cName, err := cString(name, "model name")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cName))
	ptr, err := r.h.acquire()
	if err != nil {
		return nil, err
	}
	defer r.h.release()
	var mp *C.sieve_model
	if err := statusError(C.sieve_registry_get(ptr, cName, &mp)); err != nil {
		return nil, err
	}
	return newModel(mp, kind)
}

// List describes every model folder under the root, sorted by name, without
// loading any.
func (r *Registry) List() ([]RegistryEntry, error) {
	ptr, err := r.h.acquire()
	if err != nil {
		return nil, err
	}
	defer r.h.release()
	var list *C.sieve_model_list
	if err := statusError(C.sieve_registry_list(ptr, &list)); err != nil {
		return nil, err
	}
	defer C.sieve_model_list_destroy(list)
	out := make([]RegistryEntry, int(C.sieve_model_list_size(list)))
	for i := range out {
		var e C.sieve_registry_entry
		e.struct_size = C.sizeof_sieve_registry_entry
		if err := statusError(C.sieve_model_list_get(list, C.size_t(i), &e)); err != nil {
			return nil, err
		}
		out[i] = RegistryEntry{
			Name:      C.GoString(e.name),
			Kind:      Kind(e.kind),
			Dimension: int(e.dimension),
			MaxLength: int(e.max_length),
			Loaded:    e.loaded != 0,
			Providers: splitList(C.GoString(e.providers)),
			Err:       C.GoString(e.error),
		}
	}
	return out, nil
}

// Close releases the registry and its share of the loaded models; the
// Embedders, SparseEmbedders and Rerankers it handed out stay usable until
// closed themselves. It waits
// for calls in flight; later calls return an error wrapping ErrClosed.
// Closing again does nothing.
func (r *Registry) Close() error {
	r.h.close()
	return nil
}
