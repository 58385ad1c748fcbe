// Command loadgen is a closed-loop HTTP load generator for OpenAI-style
// embedding servers (POST /v1/embeddings), used by bench/load/run_load.sh to
// measure `sieve serve` and a peer server the same way.
//
// Closed loop: each of -concurrency workers sends one request, waits for the
// whole response, checks it, and only then sends the next. Throughput is
// therefore what the server sustains with that many requests outstanding,
// and latency includes any time a request waits in the server's queue.
//
// Every latency is kept, so the percentiles are exact (nearest rank over all
// successful requests), not estimates from a histogram.
//
//	go build -o loadgen . && ./loadgen -url http://127.0.0.1:8080/v1/embeddings \
//	    -model all-MiniLM-L6-v2 -sentences ../../tests/data/sentences.txt \
//	    -concurrency 64 -batch 1 -requests 100000 -pid "$(pidof sieve)" -json
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type config struct {
	url         string
	model       string
	concurrency int
	requests    int
	duration    time.Duration
	batch       int
	sentences   string
	warmup      int
	pid         int
	dim         int
	timeout     time.Duration
	jsonOut     bool
	label       string
}

func parseFlags() config {
	var c config
	flag.StringVar(&c.url, "url", "http://127.0.0.1:8080/v1/embeddings", "embeddings endpoint")
	flag.StringVar(&c.model, "model", "all-MiniLM-L6-v2", "value of the request's \"model\" field")
	flag.IntVar(&c.concurrency, "concurrency", 1, "requests outstanding at once (one keep-alive connection each)")
	flag.IntVar(&c.requests, "requests", 0, "measured requests in total (default 1000 when -duration is not set)")
	flag.DurationVar(&c.duration, "duration", 0, "measure for this long instead (with -requests too: whichever ends first)")
	flag.IntVar(&c.batch, "batch", 1, "sentences per request")
	flag.StringVar(&c.sentences, "sentences", "", "UTF-8 file, one sentence per line (required)")
	flag.IntVar(&c.warmup, "warmup", -1, "unmeasured requests sent first (-1: one per connection, so that every connection is open)")
	flag.IntVar(&c.pid, "pid", 0, "server process whose VmRSS to report before and after (0: none)")
	flag.IntVar(&c.dim, "dim", 0, "expected embedding dimension (0: whatever the first good response has)")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "per-request timeout")
	flag.BoolVar(&c.jsonOut, "json", false, "print one JSON object instead of text")
	flag.StringVar(&c.label, "label", "", "free text copied into the report (e.g. which server)")
	flag.Parse()

	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "loadgen: "+format+"\n", args...)
		os.Exit(2)
	}
	if c.sentences == "" {
		fail("-sentences is required")
	}
	if c.concurrency < 1 || c.batch < 1 {
		fail("-concurrency and -batch must be at least 1")
	}
	if c.requests < 0 || c.duration < 0 {
		fail("-requests and -duration must not be negative")
	}
	if c.requests == 0 && c.duration == 0 {
		c.requests = 1000
	}
	if c.warmup < 0 {
		c.warmup = c.concurrency
	}
	return c
}

func readSentences(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if line := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sentences", path)
	}
	return out, nil
}

// buildBodies encodes every request body up front so that JSON encoding in
// the load generator does not compete with the server for CPU while
// measuring (the generator and the server share the machine). Body i holds
// sentences i, i+1, ..., i+batch-1 (wrapping), and request t uses body
// (t*batch) mod n: consecutive requests walk the corpus round-robin, so
// every sentence is sent equally often whatever the batch size.
func buildBodies(model string, sentences []string, batch int) ([][]byte, error) {
	n := len(sentences)
	bodies := make([][]byte, n)
	for i := range bodies {
		var input any
		if batch == 1 {
			// A plain string is the most common client shape for one sentence.
			input = sentences[i]
		} else {
			list := make([]string, batch)
			for j := range list {
				list[j] = sentences[(i+j)%n]
			}
			input = list
		}
		b, err := json.Marshal(map[string]any{"model": model, "input": input})
		if err != nil {
			return nil, err
		}
		bodies[i] = b
	}
	return bodies, nil
}

// Error kinds: kept coarse so that the report stays readable; the first
// message of each kind is kept as a sample for diagnosis.
const (
	errTimeout   = "timeout"
	errTransport = "transport"
	errStatus    = "status_" // followed by the code
	errBadJSON   = "bad_json"
	errBadCount  = "bad_count"
	errBadItem   = "bad_embedding"
)

type respError struct {
	kind string
	msg  string
}

func (e *respError) Error() string { return e.kind + ": " + e.msg }

type embeddingResponse struct {
	Data []struct {
		Index *int `json:"index"`
		// Raw: the generator checks shape, not values; parsing thousands of
		// floats per response would cost CPU the server needs.
		Embedding json.RawMessage `json:"embedding"`
	} `json:"data"`
}

// arrayLen returns the number of elements of a JSON array of numbers, or -1
// when raw is not a non-empty array. json.Unmarshal has already validated
// the syntax, so counting top-level commas is enough for numbers.
func arrayLen(raw json.RawMessage) int {
	s := bytes.TrimSpace(raw)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return -1
	}
	inner := bytes.TrimSpace(s[1 : len(s)-1])
	if len(inner) == 0 || bytes.ContainsAny(inner, "[{\"") {
		return -1
	}
	return bytes.Count(inner, []byte{','}) + 1
}

// checkBody checks one response: batch items, each index once, every
// embedding an array of numbers of the same length. *dim is the expected
// length; 0 means not known yet, and the first response that passes sets it,
// so that all responses of a run must agree.
func checkBody(body []byte, batch int, dim *atomic.Int64) *respError {
	var r embeddingResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return &respError{errBadJSON, err.Error()}
	}
	if len(r.Data) != batch {
		return &respError{errBadCount, fmt.Sprintf("%d items in data, want %d", len(r.Data), batch)}
	}
	seen := make([]bool, batch)
	want := int(dim.Load())
	for i, item := range r.Data {
		idx := i
		if item.Index != nil {
			idx = *item.Index
		}
		if idx < 0 || idx >= batch || seen[idx] {
			return &respError{errBadItem, fmt.Sprintf("item %d: index %d out of range or repeated", i, idx)}
		}
		seen[idx] = true
		n := arrayLen(item.Embedding)
		if n <= 0 {
			return &respError{errBadItem, fmt.Sprintf("item %d: embedding is not a non-empty array of numbers", i)}
		}
		if want == 0 {
			want = n
		} else if n != want {
			return &respError{errBadItem, fmt.Sprintf("item %d: %d dimensions, want %d", i, n, want)}
		}
	}
	if dim.CompareAndSwap(0, int64(want)) || dim.Load() == int64(want) {
		return nil
	}
	return &respError{errBadItem, fmt.Sprintf("%d dimensions, other responses had %d", want, dim.Load())}
}

type client struct {
	http    *http.Client
	url     string
	batch   int
	dim     atomic.Int64 // embedding dimension, learned from the first good response unless -dim
	bodies  [][]byte
	counter atomic.Int64 // request tickets, shared by warm-up and measurement
}

// do sends one request and returns its latency: from just before sending
// until the last byte of the response has been read (the check of the body
// is not part of it).
func (c *client) do(buf *bytes.Buffer) (time.Duration, *respError) {
	t := c.counter.Add(1) - 1
	body := c.bodies[int((t*int64(c.batch))%int64(len(c.bodies)))]
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return 0, &respError{errTransport, err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return 0, &respError{errTimeout, err.Error()}
		}
		return 0, &respError{errTransport, err.Error()}
	}
	buf.Reset()
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	latency := time.Since(start)
	if err != nil {
		return 0, &respError{errTransport, "reading body: " + err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(buf.String())
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return 0, &respError{errStatus + strconv.Itoa(resp.StatusCode), msg}
	}
	if e := checkBody(buf.Bytes(), c.batch, &c.dim); e != nil {
		return 0, e
	}
	return latency, nil
}

type workerResult struct {
	latencies []time.Duration
	errors    map[string]int
	samples   map[string]string
}

// run drives `concurrency` closed-loop workers until `requests` requests
// have been started (0: no limit) or `deadline` has passed (zero: none).
func (c *client) run(concurrency, requests int, deadline time.Time) []workerResult {
	var started atomic.Int64
	results := make([]workerResult, concurrency)
	var wg sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func(res *workerResult) {
			defer wg.Done()
			res.errors = map[string]int{}
			res.samples = map[string]string{}
			buf := new(bytes.Buffer)
			for {
				if requests > 0 && started.Add(1) > int64(requests) {
					return
				}
				if !deadline.IsZero() && time.Now().After(deadline) {
					return
				}
				lat, e := c.do(buf)
				if e != nil {
					res.errors[e.kind]++
					if _, ok := res.samples[e.kind]; !ok {
						res.samples[e.kind] = e.msg
					}
					continue
				}
				res.latencies = append(res.latencies, lat)
			}
		}(&results[w])
	}
	wg.Wait()
	return results
}

// readRSS returns the resident set size of pid in KiB, from /proc (Linux).
func readRSS(pid int) (int64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fields := strings.Fields(rest) // "12345 kB"
			if len(fields) >= 1 {
				return strconv.ParseInt(fields[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// rssSampler records the largest RSS seen while the measured requests run:
// "before" and "after" alone would miss a spike that is freed again.
type rssSampler struct {
	pid  int
	max  atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func startSampler(pid int) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			if v, err := readRSS(pid); err == nil && v > s.max.Load() {
				s.max.Store(v)
			}
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

func (s *rssSampler) finish() int64 {
	close(s.stop)
	<-s.done
	return s.max.Load()
}

// percentile is the nearest-rank percentile of sorted values: the smallest
// value with at least p% of the values at or below it.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = max(rank, 1)
	rank = min(rank, len(sorted))
	return sorted[rank-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type report struct {
	Label              string             `json:"label,omitempty"`
	URL                string             `json:"url"`
	Model              string             `json:"model"`
	Concurrency        int                `json:"concurrency"`
	Batch              int                `json:"batch"`
	WarmupRequests     int                `json:"warmup_requests"`
	Requests           int                `json:"requests"`
	OKRequests         int                `json:"ok_requests"`
	Sentences          int                `json:"sentences"`
	WallSeconds        float64            `json:"wall_seconds"`
	RequestsPerSecond  float64            `json:"requests_per_second"`
	SentencesPerSecond float64            `json:"sentences_per_second"`
	LatencyMS          map[string]float64 `json:"latency_ms"`
	Errors             int                `json:"errors"`
	ErrorsByKind       map[string]int     `json:"errors_by_kind"`
	ErrorSamples       map[string]string  `json:"error_samples,omitempty"`
	WarmupErrors       int                `json:"warmup_errors"`
	PID                int                `json:"pid,omitempty"`
	RSSKiB             map[string]int64   `json:"rss_kib,omitempty"`
	RSSError           string             `json:"rss_error,omitempty"`
	GoMaxProcs         int                `json:"gomaxprocs"`
}

func main() {
	cfg := parseFlags()
	sentences, err := readSentences(cfg.sentences)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	bodies, err := buildBodies(cfg.model, sentences, cfg.batch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	transport := &http.Transport{
		Proxy:               nil, // loopback benchmark: never go through an HTTP(S)_PROXY
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        cfg.concurrency,
		MaxIdleConnsPerHost: cfg.concurrency, // default 2 would close and reopen connections under load
		MaxConnsPerHost:     cfg.concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	cl := &client{
		http:   &http.Client{Transport: transport, Timeout: cfg.timeout},
		url:    cfg.url,
		batch:  cfg.batch,
		bodies: bodies,
	}
	cl.dim.Store(int64(cfg.dim))

	rep := report{
		Label: cfg.label, URL: cfg.url, Model: cfg.model, Concurrency: cfg.concurrency, Batch: cfg.batch,
		WarmupRequests: cfg.warmup, PID: cfg.pid, GoMaxProcs: runtime.GOMAXPROCS(0),
		ErrorsByKind: map[string]int{}, ErrorSamples: map[string]string{},
	}
	var rssErrs []string
	rss := map[string]int64{}
	readInto := func(key string) {
		if cfg.pid == 0 {
			return
		}
		if v, err := readRSS(cfg.pid); err != nil {
			rssErrs = append(rssErrs, key+": "+err.Error())
		} else {
			rss[key] = v
		}
	}

	// "initial" is before the warm-up: the warm-up's first requests grow
	// buffers and thread pools once, which is not the steady-state growth
	// that "before" versus "after" is meant to show.
	readInto("initial")
	if cfg.warmup > 0 {
		for _, r := range cl.run(cfg.concurrency, cfg.warmup, time.Time{}) {
			for _, n := range r.errors {
				rep.WarmupErrors += n
			}
		}
	}
	readInto("before")

	var sampler *rssSampler
	if cfg.pid != 0 {
		sampler = startSampler(cfg.pid)
	}
	var deadline time.Time
	start := time.Now()
	if cfg.duration > 0 {
		deadline = start.Add(cfg.duration)
	}
	results := cl.run(cfg.concurrency, cfg.requests, deadline)
	wall := time.Since(start)
	if sampler != nil {
		if m := sampler.finish(); m > 0 {
			rss["max_during"] = m
		}
	}
	readInto("after")
	if cfg.pid != 0 {
		rep.RSSKiB = rss
		rep.RSSError = strings.Join(rssErrs, "; ")
	}

	var all []time.Duration
	for _, r := range results {
		all = append(all, r.latencies...)
		for k, n := range r.errors {
			rep.ErrorsByKind[k] += n
			rep.Errors += n
			if _, ok := rep.ErrorSamples[k]; !ok {
				rep.ErrorSamples[k] = r.samples[k]
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	rep.OKRequests = len(all)
	rep.Requests = rep.OKRequests + rep.Errors
	rep.Sentences = rep.OKRequests * cfg.batch
	rep.WallSeconds = wall.Seconds()
	if wall > 0 {
		rep.RequestsPerSecond = float64(rep.OKRequests) / wall.Seconds()
		rep.SentencesPerSecond = float64(rep.Sentences) / wall.Seconds()
	}
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	rep.LatencyMS = map[string]float64{
		"p50": ms(percentile(all, 50)), "p90": ms(percentile(all, 90)), "p99": ms(percentile(all, 99)),
		"p99.9": ms(percentile(all, 99.9)), "max": ms(percentile(all, 100)),
	}
	if len(all) > 0 {
		rep.LatencyMS["min"] = ms(all[0])
		rep.LatencyMS["mean"] = ms(sum / time.Duration(len(all)))
	}

	if cfg.jsonOut {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		return
	}
	printText(os.Stdout, &rep)
}

func printText(w io.Writer, r *report) {
	if r.Label != "" {
		fmt.Fprintf(w, "%s\n", r.Label)
	}
	fmt.Fprintf(w, "%s  concurrency %d  batch %d  (warm-up %d requests, %d errors)\n",
		r.URL, r.Concurrency, r.Batch, r.WarmupRequests, r.WarmupErrors)
	fmt.Fprintf(w, "requests   %d ok of %d in %.2f s: %.1f requests/s, %.1f sentences/s\n",
		r.OKRequests, r.Requests, r.WallSeconds, r.RequestsPerSecond, r.SentencesPerSecond)
	l := r.LatencyMS
	fmt.Fprintf(w, "latency ms p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f\n",
		l["p50"], l["p90"], l["p99"], l["p99.9"], l["max"])
	fmt.Fprintf(w, "errors     %d", r.Errors)
	kinds := make([]string, 0, len(r.ErrorsByKind))
	for k := range r.ErrorsByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  %s=%d (%s)", k, r.ErrorsByKind[k], r.ErrorSamples[k])
	}
	fmt.Fprintln(w)
	if r.PID != 0 {
		fmt.Fprintf(w, "rss KiB    pid %d: initial %d  before %d  after %d  max during %d",
			r.PID, r.RSSKiB["initial"], r.RSSKiB["before"], r.RSSKiB["after"], r.RSSKiB["max_during"])
		if r.RSSError != "" {
			fmt.Fprintf(w, "  (%s)", r.RSSError)
		}
		fmt.Fprintln(w)
	}
}
