module github.com/sieve-embed/sieve/bindings/go

// 1.24 for runtime.AddCleanup (the finalizer safety net) and a runtime.Pinner
// that accepts pointers to static data such as string literals.
go 1.24
