package sieve

// Test helpers: where the models and the sieve command line are, running the
// command line, and reading its .npy output. The command line is the
// reference the binding is held to: it runs the same engine without the C
// ABI or this binding in between, so agreeing with it bit for bit shows that
// texts, options and results cross the boundary intact.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository holding this module (its include/sieve.h).
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "include", "sieve.h")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the repository root (a folder with include/sieve.h) above the working directory")
		}
		dir = parent
	}
}

func fixturesDir(t testing.TB) string {
	if dir := os.Getenv("SIEVE_FIXTURES_DIR"); dir != "" {
		return dir
	}
	return filepath.Join(repoRoot(t), "build", "fixtures")
}

// requireDir returns dir, skipping the test when it does not exist.
func requireDir(t testing.TB, dir, what string) string {
	t.Helper()
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("%s not found at %s (build it with scripts/bootstrap.sh)", what, dir)
	}
	return dir
}

// miniLM is the real all-MiniLM-L6-v2, for embedding results that mean something.
func miniLM(t testing.TB) string {
	return requireDir(t, filepath.Join(repoRoot(t), "models", "all-MiniLM-L6-v2"), "model all-MiniLM-L6-v2")
}

// crossEncoder has random weights but the real architecture and tokenizer of
// cross-encoder/ms-marco-MiniLM-L-6-v2.
func crossEncoder(t testing.TB) string {
	return requireDir(t, filepath.Join(fixturesDir(t), "cross-encoder-minilm-l6"), "fixture cross-encoder-minilm-l6")
}

// tinyEmbedder is a two-layer BERT with a 32-dimensional output: a call takes
// about 0.1 ms, for tests that make many calls.
func tinyEmbedder(t testing.TB) string {
	return requireDir(t, filepath.Join(fixturesDir(t), "tiny-bert-tokens"), "fixture tiny-bert-tokens")
}

func sieveBin(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("SIEVE_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot(t), "build", "sieve")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("sieve command line not found at %s (set SIEVE_BIN)", bin)
	}
	return bin
}

// runCLI runs the sieve command line with lines as its standard input, one
// per line, and returns its standard output.
func runCLI(t testing.TB, lines []string, args ...string) []byte {
	t.Helper()
	for _, line := range lines {
		if strings.ContainsAny(line, "\n\r") {
			t.Fatalf("test text %q has a line break: the command line reads one text per line", line)
		}
	}
	cmd := exec.Command(sieveBin(t), args...)
	if len(lines) > 0 {
		cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("sieve %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// pluginUnavailable is why `sieve --version` lists the plugin provider `name` as unavailable on this machine, or
// "" when it offers a device. OpenVINO's plugin offers none on a CPU that is not Intel's; there OpenVINO's own
// runtime (which the set-up installs beside it) runs the graph, so OpenVINO is unavailable only without both.
func pluginUnavailable(t testing.TB, name string) string {
	t.Helper()
	why, runtime := "", ""
	for _, line := range strings.Split(string(runCLI(t, nil, "--version")), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, name+": unavailable "); ok {
			why = name + " is unavailable here: " + rest
		}
		if strings.HasPrefix(line, "OpenVINO runtime") {
			runtime = line
		}
	}
	if name == "openvino" && why != "" && !strings.HasPrefix(runtime, "OpenVINO runtime: unavailable") {
		return ""
	}
	return why
}

// cliEmbed embeds texts with `sieve embed --format npy`, whose output holds
// the float32 values bit for bit.
func cliEmbed(t testing.TB, model string, texts []string, args ...string) [][]float32 {
	t.Helper()
	out := runCLI(t, texts, append([]string{"embed", "--model", model, "--format", "npy"}, args...)...)
	values, shape := readNpy(t, out)
	if len(shape) != 2 || shape[0] != len(texts) {
		t.Fatalf("sieve embed wrote shape %v for %d texts", shape, len(texts))
	}
	return rows(values, shape[0], shape[1])
}

var npyShape = regexp.MustCompile(`'shape':\s*\(([0-9, ]*)\)`)

// readNpy reads a little-endian float32, C-order .npy file.
func readNpy(t testing.TB, data []byte) ([]float32, []int) {
	t.Helper()
	const magic = "\x93NUMPY"
	if !bytes.HasPrefix(data, []byte(magic)) || len(data) < 10 {
		t.Fatalf("not a .npy file: %q", data[:min(len(data), 16)])
	}
	var headerLen, start int
	switch data[6] {
	case 1:
		headerLen, start = int(binary.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		headerLen, start = int(binary.LittleEndian.Uint32(data[8:12])), 12
	default:
		t.Fatalf(".npy version %d", data[6])
	}
	header := string(data[start : start+headerLen])
	if !strings.Contains(header, "'descr': '<f4'") || !strings.Contains(header, "'fortran_order': False") {
		t.Fatalf("expected a C-order little-endian float32 .npy, got header %s", header)
	}
	m := npyShape.FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("no shape in .npy header %s", header)
	}
	var shape []int
	count := 1
	for _, field := range strings.Split(m[1], ",") {
		if field = strings.TrimSpace(field); field == "" {
			continue
		}
		n, err := strconv.Atoi(field)
		if err != nil {
			t.Fatalf("bad shape in .npy header %s", header)
		}
		shape = append(shape, n)
		count *= n
	}
	body := data[start+headerLen:]
	if len(body) != 4*count {
		t.Fatalf(".npy body has %d bytes for shape %v", len(body), shape)
	}
	values := make([]float32, count)
	for i := range values {
		values[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
	}
	return values, shape
}

type cliRerankResult struct {
	Index int     `json:"index"`
	Score float32 `json:"score"` // encoding/json parses into float32 exactly
}

// cliRerank ranks docs with `sieve rerank`, best first.
func cliRerank(t testing.TB, model, query string, docs []string, args ...string) []cliRerankResult {
	t.Helper()
	out := runCLI(t, docs, append([]string{"rerank", "--model", model, "--query", query}, args...)...)
	var parsed struct {
		Results []cliRerankResult `json:"results"`
	}
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("sieve rerank output: %v\n%s", err, out)
	}
	return parsed.Results
}

type cliEncoding struct {
	IDs               []uint32 `json:"ids"`
	Tokens            []string `json:"tokens"`
	TypeIDs           []uint32 `json:"type_ids"`
	AttentionMask     []uint8  `json:"attention_mask"`
	SpecialTokensMask []uint8  `json:"special_tokens_mask"`
	ByteOffsets       [][2]int `json:"byte_offsets"`
}

// cliTokenize encodes lines with `sieve tokenize ... --byte-offsets`.
func cliTokenize(t testing.TB, lines []string, args ...string) []cliEncoding {
	t.Helper()
	out := runCLI(t, lines, append([]string{"tokenize", "--byte-offsets"}, args...)...)
	dec := json.NewDecoder(bytes.NewReader(out))
	var encodings []cliEncoding
	for {
		var e cliEncoding
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("sieve tokenize output: %v", err)
		}
		encodings = append(encodings, e)
	}
	if len(encodings) != len(lines) {
		t.Fatalf("sieve tokenize wrote %d encodings for %d lines", len(encodings), len(lines))
	}
	return encodings
}

// requireSameBits fails unless got and want hold the same float32 values
// bit for bit.
func requireSameBits(t testing.TB, what string, got, want [][]float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s: row %d has %d values, want %d", what, i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
				t.Fatalf("%s: row %d value %d is %v, want %v (bit for bit)", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}

// testTexts are varied inputs: lengths from one word to beyond the model's
// 256 tokens (so truncation is exercised), punctuation, accents, CJK, emoji,
// and a NUL byte, which the C ABI's explicit lengths must carry through.
func testTexts() []string {
	return []string{
		"A cat sits on the mat.",
		"Dogs are loyal companions.",
		"The stock market fell sharply on Tuesday after the central bank raised interest rates.",
		"Photosynthesis converts light energy into chemical energy stored in glucose.",
		"hello",
		"Héllo wörld, ça va? Ünïcödé everywhere.",
		"東京は日本の首都です。",
		"Pizza 🍕 and ice cream 🍦 for dessert!",
		"How do I reset my password?",
		"Quantum entanglement links the states of two particles across any distance.",
		strings.Repeat("A very long sentence that goes on and on, ", 60),
		"The mitochondria is the powerhouse of the cell.",
		"tabs\tand  double  spaces",
		"NUL\x00inside",
		"Gradient descent minimizes a loss function iteratively.",
		"What's the weather like in Paris tomorrow?",
		"The Eiffel Tower was completed in 1889.",
		"x",
		"Rust and Go are both compiled languages.",
		"To be, or not to be, that is the question.",
	}
}
