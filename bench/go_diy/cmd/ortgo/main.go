// ortgo: the do-it-yourself Go peer on github.com/yalue/onnxruntime_go and
// github.com/daulet/tokenizers (user code in embed.go). Build with ../../build.sh.
package main

import "sieve/bench/go_diy/internal/harness"

func main() { harness.Main("ortgo", newEmbedder) }
