// gomlx: the do-it-yourself Go peer on github.com/gomlx/gomlx with its ONNX
// importer github.com/gomlx/onnx-gomlx, on the pure-Go "simplego" backend, and
// github.com/daulet/tokenizers (user code in embed.go). Build with ../../build.sh.
package main

import "sieve/bench/go_diy/internal/harness"

func main() { harness.Main("gomlx", newEmbedder) }
