package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/daulet/tokenizers"
	ort "github.com/yalue/onnxruntime_go"

	"sieve/bench/go_diy/internal/harness"
)

// all-MiniLM-L6-v2: sentence_bert_config.json says max_seq_length 256 (its
// tokenizer.json says 128 and pads to a fixed 128, which sentence-transformers overrides).
const maxLength = 256

type ortEmbedder struct {
	tk      *tokenizers.Tokenizer
	session *ort.DynamicAdvancedSession
}

func newEmbedder(cfg harness.Config) (harness.Embedder, error) {
	ort.SetSharedLibraryPath(cfg.ORTLib)
	if err := ort.InitializeEnvironment(); err != nil {
		return nil, err
	}
	tkJSON, err := os.ReadFile(filepath.Join(cfg.ModelDir, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	tk, err := tokenizers.FromBytesWithTruncation(tkJSON, maxLength, tokenizers.TruncationDirectionRight)
	if err != nil {
		return nil, err
	}
	// The same session settings as Sieve: intra-op threads = physical cores,
	// inter-op 1, all graph optimizations, no memory patterns, CPU arena on.
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	for _, err := range []error{
		opts.SetIntraOpNumThreads(cfg.Threads),
		opts.SetInterOpNumThreads(1),
		opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll),
		opts.SetMemPattern(false),
		opts.SetCpuMemArena(true),
	} {
		if err != nil {
			return nil, err
		}
	}
	session, err := ort.NewDynamicAdvancedSession(filepath.Join(cfg.ModelDir, "model.onnx"),
		[]string{"input_ids", "attention_mask", "token_type_ids"}, []string{"last_hidden_state"}, opts)
	if err != nil {
		return nil, err
	}
	return &ortEmbedder{tk: tk, session: session}, nil
}

func (e *ortEmbedder) Embed(texts []string) ([][]float32, error) {
	// Tokenize; the file's fixed padding to 128 is dropped again: pad to the longest in the batch.
	encs := make([]tokenizers.Encoding, len(texts))
	lens := make([]int, len(texts))
	seq := 0
	for i, text := range texts {
		encs[i] = e.tk.EncodeWithOptions(text, true, tokenizers.WithReturnTypeIDs(), tokenizers.WithReturnAttentionMask())
		for _, m := range encs[i].AttentionMask {
			lens[i] += int(m)
		}
		seq = max(seq, lens[i])
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

	shape := ort.NewShape(int64(n), int64(seq))
	idsT, err := ort.NewTensor(shape, ids)
	if err != nil {
		return nil, err
	}
	defer idsT.Destroy()
	maskT, err := ort.NewTensor(shape, mask)
	if err != nil {
		return nil, err
	}
	defer maskT.Destroy()
	typesT, err := ort.NewTensor(shape, types)
	if err != nil {
		return nil, err
	}
	defer typesT.Destroy()
	outputs := []ort.Value{nil} // ORT allocates last_hidden_state [n, seq, 384]
	if err := e.session.Run([]ort.Value{idsT, maskT, typesT}, outputs); err != nil {
		return nil, err
	}
	defer outputs[0].Destroy()
	hiddenT, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, fmt.Errorf("last_hidden_state: unexpected type %T", outputs[0])
	}
	hidden := hiddenT.GetData()
	dim := int(hiddenT.GetShape()[2])

	// Mean pooling over the attention mask, then L2 normalization (sentence-transformers).
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float32, dim)
		for t := 0; t < lens[i]; t++ {
			row := hidden[(i*seq+t)*dim : (i*seq+t+1)*dim]
			for d := range v {
				v[d] += row[d]
			}
		}
		var norm float64
		for d := range v {
			v[d] /= float32(max(lens[i], 1))
			norm += float64(v[d]) * float64(v[d])
		}
		scale := float32(1 / max(math.Sqrt(norm), 1e-12))
		for d := range v {
			v[d] *= scale
		}
		vecs[i] = v
	}
	return vecs, nil
}

func (e *ortEmbedder) Close() error {
	e.session.Destroy()
	e.tk.Close()
	return ort.DestroyEnvironment()
}
