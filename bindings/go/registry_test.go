package sieve

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// cloneTree makes dst a copy of the folder src, with hard links where the
// file system allows (the registry refuses symbolic links that lead out of
// its root, so the models must really be inside it).
func cloneTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if os.Link(path, target) == nil {
			return nil
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatalf("copying %s to %s: %v", src, dst, err)
	}
}

// registryRoot holds an embedding model at "tiny" and a cross-encoder at
// "org/ce".
func registryRoot(t testing.TB) string {
	root := t.TempDir()
	cloneTree(t, tinyEmbedder(t), filepath.Join(root, "tiny"))
	cloneTree(t, crossEncoder(t), filepath.Join(root, "org", "ce"))
	return root
}

func TestRegistry(t *testing.T) {
	root := registryRoot(t)
	reg, err := OpenRegistry(root, WithModelOptions(WithBatchSize(4)), WithMemoryBudget(1<<30))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	ctx := context.Background()

	list, err := reg.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "org/ce" || list[0].Kind != KindReranker ||
		list[1].Name != "tiny" || list[1].Kind != KindEmbedding || list[1].Dimension != 32 ||
		list[0].Loaded || list[1].Loaded || list[0].Err != "" || list[1].Err != "" {
		t.Fatalf("List() = %+v", list)
	}

	// The registry's models are loaded with its model options: the same
	// vectors and scores as the command line with those options.
	texts := testTexts()
	e, err := reg.Embedder("tiny")
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	requireSameBits(t, "registry Embedder", got, cliEmbed(t, filepath.Join(root, "tiny"), texts, "--batch-size", "4"))

	r, err := reg.Reranker("org/ce")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	docs := rerankDocs()
	ranked, err := r.Rerank(ctx, rerankQuery, docs, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := cliRerank(t, filepath.Join(root, "org", "ce"), rerankQuery, docs, "--batch-size", "4")
	for i := range want {
		if ranked[i].Index != want[i].Index || ranked[i].Score != want[i].Score {
			t.Fatalf("registry Reranker: %+v, the command line: %+v", ranked, want)
		}
	}

	if list, err = reg.List(); err != nil || !list[0].Loaded || !list[1].Loaded {
		t.Fatalf("List() after loading both = %+v, %v", list, err)
	}

	for _, name := range []string{"missing", "org", "org/missing"} {
		if _, err := reg.Embedder(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Embedder(%q): got %v, want ErrNotFound", name, err)
		}
	}
	if _, err := reg.Reranker("tiny"); !errors.Is(err, ErrWrongKind) {
		t.Errorf("Reranker of an embedding model: %v", err)
	}
	if _, err := reg.Embedder("org/ce"); !errors.Is(err, ErrWrongKind) {
		t.Errorf("Embedder of a cross-encoder: %v", err)
	}
	if _, err := reg.Embedder("ti\x00ny"); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Embedder of a name with a NUL byte: %v", err)
	}

	// Models handed out outlive the registry.
	reg.Close()
	reg.Close()
	if again, err := e.Embed(ctx, texts); err != nil {
		t.Fatalf("Embed after the registry closed: %v", err)
	} else {
		requireSameBits(t, "Embed after the registry closed", again, got)
	}
	if _, err := reg.Embedder("tiny"); !errors.Is(err, ErrClosed) {
		t.Errorf("Embedder after Close: %v", err)
	}
	if _, err := reg.List(); !errors.Is(err, ErrClosed) {
		t.Errorf("List after Close: %v", err)
	}
}

// Names that lead out of the root are not found (sieve.h: "Names outside
// the root ("..", absolute paths) are NOT_FOUND"), even when they would lead
// back into it.
func TestRegistryNamesOutsideRoot(t *testing.T) {
	root := registryRoot(t)
	reg, err := OpenRegistry(root)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	for _, name := range []string{"../x", "../" + filepath.Base(root) + "/tiny", filepath.Join(root, "tiny")} {
		if _, err := reg.Embedder(name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Embedder(%q): got %v, want ErrNotFound", name, err)
		}
	}
}

// A model is loaded once however many handles the registry gives for it;
// closing one handle leaves the others working. (WithSharedThreadPool is not
// tested: ONNX Runtime allows the choice once per process, before any model
// is loaded, and other tests have loaded models by now.)
func TestRegistrySharesModels(t *testing.T) {
	reg, err := OpenRegistry(registryRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	a, err := reg.Embedder("tiny")
	if err != nil {
		t.Fatal(err)
	}
	b, err := reg.Embedder("tiny")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	va, err := a.Embed(ctx, []string{"shared"})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	vb, err := b.Embed(ctx, []string{"shared"})
	if err != nil {
		t.Fatal(err)
	}
	requireSameBits(t, "second handle after the first closed", vb, va)
}
