// sievego: the same harness as the do-it-yourself peers, on bindings/go (user
// code in embed.go), so that throughput, latency, agreement and lines of
// user code compare like for like. Build with ../../build.sh.
package main

import "sieve/bench/go_diy/internal/harness"

func main() { harness.Main("sievego", newEmbedder) }
