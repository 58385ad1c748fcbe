package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/daulet/tokenizers"
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/onnx-gomlx/onnx"

	"sieve/bench/go_diy/internal/harness"
)

// all-MiniLM-L6-v2: sentence_bert_config.json says max_seq_length 256 (its
// tokenizer.json says 128 and pads to a fixed 128, which sentence-transformers overrides).
const maxLength = 256

type gomlxEmbedder struct {
	tk      *tokenizers.Tokenizer
	backend backends.Backend
	exec    *context.Exec
}

func newEmbedder(cfg harness.Config) (harness.Embedder, error) {
	tkJSON, err := os.ReadFile(filepath.Join(cfg.ModelDir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	tk, err := tokenizers.FromBytesWithTruncation(tkJSON, maxLength, tokenizers.TruncationDirectionRight)
	if err != nil {
		return nil, err
	}
	model, err := onnx.ReadFile(filepath.Join(cfg.ModelDir, "model.onnx"))
	if err != nil {
		return nil, err
	}
	ctx := context.New()
	if err := model.VariablesToContext(ctx); err != nil {
		return nil, err
	}
	// The pure-Go backend; its worker pool defaults to runtime.NumCPU().
	config := ""
	if cfg.Threads != runtime.NumCPU() {
		config = fmt.Sprintf("parallelism=%d", cfg.Threads)
	}
	backend, err := simplego.New(config)
	if err != nil {
		return nil, err
	}
	// The ONNX graph, then mean pooling over the attention mask and L2
	// normalization (sentence-transformers), all in one GoMLX graph.
	exec, err := context.NewExec(backend, ctx, func(ctx *context.Context, ids, mask, types *Node) *Node {
		hidden := model.CallGraph(ctx, ids.Graph(), map[string]*Node{
			"input_ids": ids, "attention_mask": mask, "token_type_ids": types}, "last_hidden_state")[0]
		m := ExpandAxes(ConvertDType(mask, dtypes.Float32), -1) // [batch, seq, 1]
		sum := ReduceSum(Mul(hidden, m), 1)
		count := MaxScalar(ReduceSum(m, 1), 1e-9)
		return L2Normalize(Div(sum, count), -1)
	})
	if err != nil {
		return nil, err
	}
	// One graph is compiled per input shape: sequence lengths are padded to
	// powers of two (see Embed), so a few dozen shapes at most.
	exec.SetMaxCache(64)
	return &gomlxEmbedder{tk: tk, backend: backend, exec: exec}, nil
}

func (e *gomlxEmbedder) Embed(texts []string) ([][]float32, error) {
	// Tokenize; the file's fixed padding to 128 is dropped again: pad to the
	// longest in the batch, rounded up to a power of two to bound recompilation.
	encs := make([]tokenizers.Encoding, len(texts))
	lens := make([]int, len(texts))
	longest := 0
	for i, text := range texts {
		encs[i] = e.tk.EncodeWithOptions(text, true, tokenizers.WithReturnTypeIDs(), tokenizers.WithReturnAttentionMask())
		for _, m := range encs[i].AttentionMask {
			lens[i] += int(m)
		}
		longest = max(longest, lens[i])
	}
	seq := 8
	for seq < longest {
		seq *= 2
	}
	n := len(texts)
	ids := make([]int64, n*seq)
	mask := make([]int64, n*seq)
	types := make([]int64, n*seq)
	for i, enc := range encs {
		for t := 0; t < lens[i]; t++ {
			ids[i*seq+t] = int64(enc.IDs[t])
			mask[i*seq+t] = 1
			types[i*seq+t] = int64(enc.TypeIDs[t])
		}
	}
	inputs := []*tensors.Tensor{
		tensors.FromFlatDataAndDimensions(ids, n, seq),
		tensors.FromFlatDataAndDimensions(mask, n, seq),
		tensors.FromFlatDataAndDimensions(types, n, seq),
	}
	outputs, err := e.exec.Exec(inputs[0], inputs[1], inputs[2])
	for _, t := range inputs {
		t.FinalizeAll()
	}
	if err != nil {
		return nil, err
	}
	defer outputs[0].FinalizeAll()
	flat, err := tensors.CopyFlatData[float32](outputs[0])
	if err != nil {
		return nil, err
	}
	dim := len(flat) / n
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = flat[i*dim : (i+1)*dim]
	}
	return vecs, nil
}

func (e *gomlxEmbedder) Close() error {
	e.exec.Finalize()
	e.backend.Finalize()
	return e.tk.Close()
}
