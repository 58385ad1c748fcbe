package sieve

/*
#include "sieve.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Texts are handed to C without copying their bytes: each sieve_text points
// at the Go string's own data.
//
// The cgo rules allow passing a Go pointer to C only if the memory it points
// to holds no unpinned Go pointers. A []C.sieve_text is Go memory, and its
// elements hold pointers to Go string data, so every string's data is pinned
// with a runtime.Pinner for the duration of the call; the pinned pointers may
// then sit in Go memory passed to C (and cgocheck verifies that they are
// pinned). The alternative, copying every text into C.malloc'd memory, costs
// a copy of all the input and a malloc per call; pinning costs a small
// bookkeeping entry per string, and the strings cannot move in any case
// (Go's collector does not move heap objects). Strings are immutable, so C
// reading them races with nothing. Pinning a pointer that is not into the Go
// heap (a string literal) is a no-op.

// pinText returns s as a sieve_text, pinning its data in p.
func pinText(p *runtime.Pinner, s string) C.sieve_text {
	if len(s) == 0 {
		// unsafe.StringData of an empty string is unspecified; the C ABI
		// takes NULL with size 0.
		return C.sieve_text{}
	}
	data := unsafe.StringData(s)
	p.Pin(data)
	return C.sieve_text{data: (*C.char)(unsafe.Pointer(data)), size: C.size_t(len(s))}
}

// pinTexts returns texts as a sieve_text array (nil when empty), pinning
// their data in p.
func pinTexts(p *runtime.Pinner, texts []string) []C.sieve_text {
	if len(texts) == 0 {
		return nil
	}
	out := make([]C.sieve_text, len(texts))
	for i, s := range texts {
		out[i] = pinText(p, s)
	}
	return out
}

// first returns a pointer to s[0], or nil for an empty slice, for C
// parameters that take an array and its length.
func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
