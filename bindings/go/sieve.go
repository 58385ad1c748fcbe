// Package sieve is the Go binding of Sieve, a local inference engine for text
// embeddings and cross-encoder reranking on ONNX Runtime.
//
// Each kind of model has its handle: Embedder (dense vectors, Embed),
// SparseEmbedder (learned sparse SPLADE vectors, EmbedSparse) and Reranker
// (cross-encoder scores, Rerank and Classify).
//
// It wraps the C ABI (sieve.h, libsieve) through cgo and finds the library
// with pkg-config: set PKG_CONFIG_PATH to <prefix>/lib/pkgconfig of an
// installed Sieve.
//
// Every handle (Embedder, SparseEmbedder, Reranker, Tokenizer, Registry, Index) may be used from
// many goroutines at once. Close releases it; Close is idempotent, waits for
// calls in flight, and any call after it returns ErrClosed. A handle that is
// never closed is released by the garbage collector, but only eventually:
// models hold hundreds of megabytes, so close them.
package sieve

/*
// sieve.pc carries an rpath to libsieve, so programs run without
// LD_LIBRARY_PATH.
#cgo pkg-config: sieve
#include <stdlib.h>
#include "sieve.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// ABIVersion is the version of the C ABI this binding was written for.
const ABIVersion = C.SIEVE_ABI_VERSION

// Version returns the version of the loaded libsieve ("0.1.0").
func Version() string { return C.GoString(C.sieve_version()) }

// ONNXRuntimeVersion returns the version of the ONNX Runtime libsieve runs on.
func ONNXRuntimeVersion() string { return C.GoString(C.sieve_onnxruntime_version()) }

// SetLogLevel sets how much Sieve logs to standard error, for the whole
// process: "trace", "debug", "info" (the default: one line per loaded model,
// naming its execution providers), "warn", "error" or "off".
func SetLogLevel(level string) error {
	cLevel, err := cString(level, "log level")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cLevel))
	return statusError(C.sieve_set_log_level(cLevel))
}

var abiCheck = sync.OnceValue(func() error {
	// The header this package was compiled against and the shared library
	// found at run time can differ; a mismatch would misread every struct.
	if got := uint32(C.sieve_abi_version()); got != ABIVersion {
		return &Error{
			Code:       CodeUnsupported,
			Message:    fmt.Sprintf("libsieve has ABI version %d, this binding needs %d", got, ABIVersion),
			InputIndex: -1,
		}
	}
	return nil
})

// Kind says whether a model embeds texts (as dense or sparse vectors) or
// scores (query, document) pairs.
type Kind int

const (
	KindEmbedding Kind = C.SIEVE_KIND_EMBEDDING // dense vectors: Embedder
	KindReranker  Kind = C.SIEVE_KIND_RERANKER  // a cross-encoder: Reranker
	KindSparse    Kind = C.SIEVE_KIND_SPARSE    // learned sparse (SPLADE) vectors: SparseEmbedder
	// A late-interaction (ColBERT) model: a vector per token; it reranks by
	// MaxSim, so a Reranker opens it.
	KindMultiVector Kind = C.SIEVE_KIND_MULTI_VECTOR
)

func (k Kind) String() string {
	switch k {
	case KindEmbedding:
		return "embedding"
	case KindReranker:
		return "reranker"
	case KindSparse:
		return "sparse"
	case KindMultiVector:
		return "multi-vector"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

func (k Kind) noun() string {
	switch k {
	case KindReranker:
		return "a reranker (cross-encoder)"
	case KindSparse:
		return "a sparse (SPLADE) embedding model"
	case KindMultiVector:
		return "a late-interaction (ColBERT) model"
	}
	return "a dense embedding model"
}

// handleName is the Go type that opens a model of kind k.
func (k Kind) handleName() string {
	switch k {
	case KindReranker, KindMultiVector:
		return "Reranker"
	case KindSparse:
		return "SparseEmbedder"
	}
	return "Embedder"
}

// ModelInfo describes a loaded model.
type ModelInfo struct {
	Kind Kind
	// Embedding: the length of the vectors. Reranker: the number of labels.
	// Sparse: the vocabulary size (every index of its vectors is below it).
	Dimension int
	// The most tokens of one input (or query-document pair).
	MaxLength int
	// Embedding: whether vectors are L2-normalized (never for sparse ones).
	Normalize bool
	// Embedding: "mean", "cls", "max", "mean_sqrt_len", "lasttoken", or
	// "model" when the ONNX graph pools itself. Sparse: "splade max" or
	// "splade sum" ("model" when the graph pools). Reranker: "".
	Pooling string
	// The execution providers the session really uses, in priority order
	// ("cuda", "cpu").
	Providers []string
	Folder    string
	ONNXFile  string
}

// loadModel loads a model folder with the given options and checks its kind.
func loadModel(path string, kind Kind, opts []Option) (*model, error) {
	if err := abiCheck(); err != nil {
		return nil, err
	}
	var cfg config
	for _, opt := range opts {
		opt(&cfg)
	}
	copts, err := cfg.toC()
	if err != nil {
		return nil, err
	}
	defer copts.free()
	cPath, err := cString(path, "model path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cPath))
	// The folder's kind is left to the library to detect (rather than
	// demanded) so that a mismatch becomes a clear wrong-kind error below
	// instead of a failure deep inside loading the other kind.
	var ptr *C.sieve_model
	if err := statusError(C.sieve_model_load(cPath, copts.opts, &ptr)); err != nil {
		return nil, err
	}
	return newModel(ptr, kind)
}

// model is the state shared by an Embedder, SparseEmbedder or Reranker and
// its Tokenizer.
type model struct {
	h    *handle[*C.sieve_model]
	info ModelInfo
}

// newModel takes ownership of ptr: it is destroyed here on error, else by
// Close or, failing that, by the garbage collector.
func newModel(ptr *C.sieve_model, kind Kind) (*model, error) {
	info, err := modelInfo(ptr)
	// A ColBERT model reranks: a Reranker opens it.
	if err == nil && info.Kind != kind && !(kind == KindReranker && info.Kind == KindMultiVector) {
		err = &Error{
			Code: CodeWrongKind,
			Message: fmt.Sprintf("%s holds %s, not %s: open it as a %s", info.Folder, info.Kind.noun(), kind.noun(),
				info.Kind.handleName()),
			InputIndex: -1,
		}
	}
	if err != nil {
		C.sieve_model_destroy(ptr)
		return nil, err
	}
	return &model{h: newHandle(ptr, destroyModel, kind.handleName()+" "+info.Folder), info: info}, nil
}

func destroyModel(p *C.sieve_model) { C.sieve_model_destroy(p) }

func modelInfo(ptr *C.sieve_model) (ModelInfo, error) {
	var ci C.sieve_model_info
	ci.struct_size = C.sizeof_sieve_model_info
	if err := statusError(C.sieve_model_get_info(ptr, &ci)); err != nil {
		return ModelInfo{}, err
	}
	return ModelInfo{
		Kind:      Kind(ci.kind),
		Dimension: int(ci.dimension),
		MaxLength: int(ci.max_length),
		Normalize: ci.normalize != 0,
		Pooling:   C.GoString(ci.pooling),
		Providers: splitList(C.GoString(ci.providers)),
		Folder:    C.GoString(ci.folder),
		ONNXFile:  C.GoString(ci.onnx_file),
	}, nil
}

// publicInfo is a copy of the model's description the caller may modify.
func (m *model) publicInfo() ModelInfo {
	info := m.info
	info.Providers = append([]string(nil), m.info.Providers...)
	return info
}

// tokenizer is the model's own tokenizer: borrowed from the C model, so
// every call on it holds the model's handle, and closing the model closes it.
func (m *model) tokenizer() *Tokenizer {
	return &Tokenizer{acquire: func() (*C.sieve_tokenizer, func(), error) {
		ptr, err := m.h.acquire()
		if err != nil {
			return nil, nil, err
		}
		return C.sieve_model_tokenizer(ptr), m.h.release, nil
	}}
}

// cString copies s to C memory for a NUL-terminated parameter; a NUL byte
// inside s would silently cut it short, so it is an error instead.
func cString(s, what string) (*C.char, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, invalidArgument("%s contains a NUL byte: %q", what, s)
	}
	return C.CString(s), nil
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// ErrClosed is returned (wrapped) by any call on a handle after its Close.
var ErrClosed = errors.New("sieve: use of a closed handle")
