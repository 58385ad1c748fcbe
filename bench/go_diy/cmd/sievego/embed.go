package main

import (
	"context"

	sieve "github.com/sieve-embed/sieve/bindings/go"

	"sieve/bench/go_diy/internal/harness"
)

type sieveEmbedder struct{ embedder *sieve.Embedder }

func newEmbedder(cfg harness.Config) (harness.Embedder, error) {
	// Tokenization, truncation at the model's 256 tokens, batching by length,
	// mean pooling and normalization all come from the model folder.
	embedder, err := sieve.NewEmbedder(cfg.ModelDir, sieve.WithThreads(cfg.Threads))
	if err != nil {
		return nil, err
	}
	return &sieveEmbedder{embedder}, nil
}

func (e *sieveEmbedder) Embed(texts []string) ([][]float32, error) {
	return e.embedder.Embed(context.Background(), texts)
}

func (e *sieveEmbedder) Close() error { return e.embedder.Close() }
