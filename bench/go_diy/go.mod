module sieve/bench/go_diy

go 1.24.3

require (
	github.com/daulet/tokenizers v1.24.0
	github.com/gomlx/gomlx v0.26.0
	github.com/gomlx/onnx-gomlx v0.3.4
	github.com/yalue/onnxruntime_go v1.27.0
)

require (
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gomlx/exceptions v0.0.3 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/sieve-embed/sieve/bindings/go v0.0.0
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/exp v0.0.0-20251023183803-a4bb9ffd2546 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)

replace github.com/sieve-embed/sieve/bindings/go => ../../bindings/go
