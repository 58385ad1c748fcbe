// Package mallocstats reports how much memory the C allocator has handed
// out, for the binding's leak tests: unlike the resident set size, it moves
// by exactly the bytes that C code keeps allocated, so it can show a leak of
// a few hundred bytes per call that RSS noise would hide.
package mallocstats

/*
#include <stdlib.h> // for __GLIBC__
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
static size_t in_use(int* ok) { *ok = 1; return mallinfo2().uordblks; }
#else
static size_t in_use(int* ok) { *ok = 0; return 0; }
#endif
*/
import "C"

// InUse returns the bytes currently allocated through malloc and not freed,
// over all arenas, and false where the C library cannot say (not glibc 2.33+).
func InUse() (uint64, bool) {
	var ok C.int
	n := C.in_use(&ok)
	return uint64(n), ok != 0
}
