package sieve

/*
#include "sieve.h"
*/
import "C"

import "fmt"

// Code classifies an error; it mirrors the C enum sieve_status_code.
type Code int

const (
	CodeOK              Code = C.SIEVE_OK
	CodeInvalidArgument Code = C.SIEVE_INVALID_ARGUMENT // a bad parameter or option
	CodeInvalidInput    Code = C.SIEVE_INVALID_INPUT    // user text is malformed (not UTF-8, too long)
	CodeNotFound        Code = C.SIEVE_NOT_FOUND        // a named file, folder or model does not exist
	CodeParse           Code = C.SIEVE_PARSE            // a file exists but its content is malformed
	CodeUnsupported     Code = C.SIEVE_UNSUPPORTED      // well-formed, but Sieve does not implement it
	CodeRuntime         Code = C.SIEVE_RUNTIME          // ONNX Runtime or the operating system failed
	CodeWrongKind       Code = C.SIEVE_WRONG_KIND       // an embedding call on a reranker, or the reverse
	CodeBufferTooSmall  Code = C.SIEVE_BUFFER_TOO_SMALL // a bug in this binding if it ever surfaces
	CodeOutOfMemory     Code = C.SIEVE_OUT_OF_MEMORY
	CodeInternal        Code = C.SIEVE_INTERNAL // a bug in Sieve
)

// codeNames are the C library's names (sieve_status_code_name), kept in Go so
// that formatting an error needs no call into C; a test checks they agree.
var codeNames = [...]string{
	CodeOK:              "ok",
	CodeInvalidArgument: "invalid_argument",
	CodeInvalidInput:    "invalid_input",
	CodeNotFound:        "not_found",
	CodeParse:           "parse",
	CodeUnsupported:     "unsupported",
	CodeRuntime:         "runtime",
	CodeWrongKind:       "wrong_kind",
	CodeBufferTooSmall:  "buffer_too_small",
	CodeOutOfMemory:     "out_of_memory",
	CodeInternal:        "internal",
}

func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// cCodeName is the C library's name of c, for the test that keeps codeNames
// in step with it (test files cannot use cgo).
func cCodeName(c Code) string { return C.GoString(C.sieve_status_code_name(C.sieve_status_code(c))) }

// Error is an error reported by libsieve (or by this binding, for checks it
// makes before calling it). Test for a class of error with errors.Is and the
// sentinels below, or get the details with errors.As:
//
//	var e *sieve.Error
//	if errors.As(err, &e) && e.Code == sieve.CodeInvalidInput { ... e.InputIndex ... }
type Error struct {
	Code    Code
	Message string
	// For an error about one text of a batch, its index in the caller's
	// slice; else -1.
	InputIndex int
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "sieve: " + e.Code.String()
	}
	return fmt.Sprintf("sieve: %s: %s", e.Code, e.Message)
}

// Is makes every *Error match the sentinel of its code:
// errors.Is(err, sieve.ErrNotFound) holds for any not-found error. A sentinel
// is an *Error with no message; an *Error with a message matches only itself.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is, one per code.
var (
	ErrInvalidArgument = &Error{Code: CodeInvalidArgument, InputIndex: -1}
	ErrInvalidInput    = &Error{Code: CodeInvalidInput, InputIndex: -1}
	ErrNotFound        = &Error{Code: CodeNotFound, InputIndex: -1}
	ErrParse           = &Error{Code: CodeParse, InputIndex: -1}
	ErrUnsupported     = &Error{Code: CodeUnsupported, InputIndex: -1}
	ErrRuntime         = &Error{Code: CodeRuntime, InputIndex: -1}
	ErrWrongKind       = &Error{Code: CodeWrongKind, InputIndex: -1}
	ErrBufferTooSmall  = &Error{Code: CodeBufferTooSmall, InputIndex: -1}
	ErrOutOfMemory     = &Error{Code: CodeOutOfMemory, InputIndex: -1}
	ErrInternal        = &Error{Code: CodeInternal, InputIndex: -1}
)

// statusError converts a C status to an error (nil for success) and frees it.
func statusError(s *C.sieve_status) error {
	if s == nil {
		return nil
	}
	defer C.sieve_status_destroy(s)
	return &Error{
		Code:       Code(C.sieve_status_get_code(s)),
		Message:    C.GoString(C.sieve_status_message(s)),
		InputIndex: int(C.sieve_status_input_index(s)),
	}
}

func invalidArgument(format string, args ...any) error {
	return &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf(format, args...), InputIndex: -1}
}
