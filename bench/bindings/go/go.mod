module github.com/sieve-embed/sieve/bench/bindings/go

go 1.24

require github.com/sieve-embed/sieve/bindings/go v0.0.0

replace github.com/sieve-embed/sieve/bindings/go => ../../../bindings/go
