// Package harness is the shared, non-user part of the do-it-yourself Go peers:
// command-line flags, reading the sentences, the timing loop, percentiles, the
// .npy writer and the JSON result lines. What a Go service would write itself
// (tokenize, build tensors, run, pool, normalize) lives in each peer's
// embed.go and is what the README counts.
package harness

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Embedder is what each peer implements: texts in, one L2-normalized vector per text out.
type Embedder interface {
	Embed(texts []string) ([][]float32, error)
	Close() error
}

// Config is what the harness hands a peer's constructor.
type Config struct {
	ModelDir string // folder with model.onnx and tokenizer.json
	Threads  int    // intra-op threads (physical cores unless -threads says otherwise)
	ORTLib   string // path of libonnxruntime.so (peers that use ONNX Runtime)
}

// Result is one JSON line on standard output, one per measured batch size.
type Result struct {
	Peer          string  `json:"peer"`
	Batch         int     `json:"batch"`
	SentencesPerS float64 `json:"sentences_per_s"`
	P50Ms         float64 `json:"p50_ms"`
	P99Ms         float64 `json:"p99_ms"`
	MeanMs        float64 `json:"mean_ms"`
	Iters         int     `json:"iters"`
	Impl          string  `json:"impl"`      // = peer, the name bench/bindings/go uses
	Calls         int     `json:"calls"`     // = iters, ditto
	MedianMs      float64 `json:"median_ms"` // = p50_ms, ditto
	Warmup        int     `json:"warmup"`
	Threads       int     `json:"threads"`
	Sentences     int     `json:"sentences"`
	LoadS         float64 `json:"load_s"`
	MeasuredWallS float64 `json:"measured_wall_s"`
	PeakRSSMiB    float64 `json:"peak_rss_mib"`
	GoVersion     string  `json:"go"`
}

// Main parses the flags, opens the peer, optionally writes every sentence's
// vector to -out, then times -iters calls per batch size of -batch.
func Main(peer string, open func(Config) (Embedder, error)) {
	if err := run(peer, open); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", peer, err)
		os.Exit(1)
	}
}

func run(peer string, open func(Config) (Embedder, error)) error {
	model := flag.String("model", "", "model folder (model.onnx, tokenizer.json)")
	textsFile := flag.String("texts", "", "text file, one sentence per line (empty lines skipped)")
	batches := flag.String("batch", "1,32", "comma-separated batch sizes to time")
	iters := flag.Int("iters", 100, "timed calls per batch size")
	flag.IntVar(iters, "calls", 100, "alias of -iters (as bench/bindings/go names it)")
	warmup := flag.Int("warmup", -1, "untimed calls per batch size before timing (-1: one cycle through the file, see README)")
	out := flag.String("out", "", "write every sentence's vector, in file order, to this float32 .npy")
	outBatch := flag.Int("out-batch", 32, "batch size used for -out")
	threads := flag.Int("threads", 0, "intra-op threads (0: physical cores)")
	ortLib := flag.String("ort", "", "libonnxruntime.so (default: $ONNXRUNTIME_LIB, else .deps/onnxruntime/lib/libonnxruntime.so of the enclosing Sieve checkout)")
	flag.Parse()
	if *model == "" || *textsFile == "" {
		flag.Usage()
		return errors.New("-model and -texts are required")
	}
	sizes, err := parseSizes(*batches)
	if err != nil {
		return err
	}
	texts, err := readLines(*textsFile)
	if err != nil {
		return err
	}
	if len(texts) == 0 {
		return fmt.Errorf("%s: no sentences", *textsFile)
	}
	cfg := Config{ModelDir: *model, Threads: *threads, ORTLib: *ortLib}
	if cfg.Threads <= 0 {
		cfg.Threads = PhysicalCores()
	}
	if cfg.ORTLib == "" {
		cfg.ORTLib = defaultORTLib()
	}

	start := time.Now()
	emb, err := open(cfg)
	if err != nil {
		return err
	}
	defer emb.Close()
	loadS := time.Since(start).Seconds()

	if *out != "" {
		var all [][]float32
		for i := 0; i < len(texts); i += *outBatch {
			vecs, err := emb.Embed(texts[i:min(i+*outBatch, len(texts))])
			if err != nil {
				return err
			}
			all = append(all, vecs...)
		}
		if err := WriteNpy(*out, all); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: wrote %d x %d to %s\n", peer, len(all), len(all[0]), *out)
	}

	enc := json.NewEncoder(os.Stdout)
	for _, b := range sizes {
		// Call c embeds lines (c*b + j) mod len(texts), j < b, counting the
		// warm-up calls: the protocol of bench/bindings/go (same sentences
		// per call for the same -warmup). The calls repeat every
		// len(texts)/gcd(len(texts), b) calls; by default the warm-up is one
		// such cycle, so that a peer that compiles per input shape (gomlx)
		// has met every timed shape before timing starts, as a long-running
		// service has.
		w := *warmup
		if w < 0 {
			w = len(texts) / gcd(len(texts), b)
		}
		batch := make([]string, b)
		ms := make([]float64, 0, *iters)
		var total time.Duration
		for c := 0; c < w+*iters; c++ {
			for j := range batch {
				batch[j] = texts[(c*b+j)%len(texts)]
			}
			t := time.Now()
			_, err := emb.Embed(batch)
			d := time.Since(t)
			if err != nil {
				return err
			}
			if c >= w {
				total += d
				ms = append(ms, float64(d.Nanoseconds())/1e6)
			}
		}
		r := Result{
			Peer: peer, Impl: peer, Batch: b, Iters: *iters, Calls: *iters, Warmup: w, Threads: cfg.Threads,
			Sentences: len(texts), LoadS: round(loadS, 3), MeasuredWallS: round(total.Seconds(), 3),
			SentencesPerS: round(float64(b**iters)/total.Seconds(), 2),
			P50Ms:         round(Percentile(ms, 50), 3), P99Ms: round(Percentile(ms, 99), 3),
			MeanMs:     round(total.Seconds()*1000/float64(*iters), 3),
			PeakRSSMiB: round(peakRSSMiB(), 1), GoVersion: runtime.Version(),
		}
		r.MedianMs = r.P50Ms
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-batch %q: want positive integers separated by commas", s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			lines = append(lines, line)
		}
	}
	return lines, sc.Err()
}

// Percentile interpolates linearly between ranks, as bench/bench_util.hpp does.
func Percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	rank := p / 100 * float64(len(s)-1)
	lo := int(rank)
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(rank-float64(lo))
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// PhysicalCores counts distinct (physical id, core id) pairs in /proc/cpuinfo,
// as Sieve sizes its intra-op pool; it falls back to the logical CPU count.
func PhysicalCores() int {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.NumCPU()
	}
	cores := map[string]bool{}
	phys, core := "", ""
	for _, line := range strings.Split(string(data)+"\n", "\n") {
		k, v, _ := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "physical id":
			phys = v
		case "core id":
			core = v
		case "":
			if core != "" {
				cores[phys+"/"+core] = true
			}
			phys, core = "", ""
		}
	}
	if len(cores) == 0 {
		return runtime.NumCPU()
	}
	return len(cores)
}

func defaultORTLib() string {
	if p := os.Getenv("ONNXRUNTIME_LIB"); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, ".deps", "onnxruntime", "lib", "libonnxruntime.so")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "libonnxruntime.so"
		}
		dir = parent
	}
}

func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return kb / 1024
			}
		}
	}
	return 0
}

// WriteNpy writes rows as a little-endian float32 C-order .npy (format 1.0).
func WriteNpy(path string, rows [][]float32) error {
	cols := 0
	if len(rows) > 0 {
		cols = len(rows[0])
	}
	header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", len(rows), cols)
	// magic (6) + version (2) + header length (2) + header + '\n', padded to 64 bytes.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("\x93NUMPY\x01\x00")
	binary.Write(w, binary.LittleEndian, uint16(len(header)))
	w.WriteString(header)
	for _, r := range rows {
		if len(r) != cols {
			f.Close()
			return fmt.Errorf("ragged rows: %d and %d", len(r), cols)
		}
		if err := binary.Write(w, binary.LittleEndian, r); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadNpy reads a 2-D little-endian float32 C-order .npy.
func ReadNpy(path string) ([][]float32, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 10 || string(data[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("%s: not a .npy file", path)
	}
	var hlen, off int
	if data[6] == 1 {
		hlen, off = int(binary.LittleEndian.Uint16(data[8:10])), 10
	} else {
		hlen, off = int(binary.LittleEndian.Uint32(data[8:12])), 12
	}
	header := string(data[off : off+hlen])
	if !strings.Contains(header, "'<f4'") || strings.Contains(header, "True") {
		return nil, fmt.Errorf("%s: want little-endian float32 C order, header %s", path, header)
	}
	shape := header[strings.Index(header, "(")+1 : strings.Index(header, ")")]
	var dims []int
	for _, f := range strings.Split(shape, ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("%s: shape %q", path, shape)
			}
			dims = append(dims, n)
		}
	}
	if len(dims) != 2 {
		return nil, fmt.Errorf("%s: want a 2-D array, shape (%s)", path, shape)
	}
	body := data[off+hlen:]
	if len(body) != dims[0]*dims[1]*4 {
		return nil, fmt.Errorf("%s: %d bytes of data for shape (%s)", path, len(body), shape)
	}
	rows := make([][]float32, dims[0])
	for i := range rows {
		rows[i] = make([]float32, dims[1])
		for j := range rows[i] {
			rows[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(body[(i*dims[1]+j)*4:]))
		}
	}
	return rows, nil
}
