package guard_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/guard"
	"github.com/wrapcheck/wrapcheck/internal/loopback"
)

const benchSpec = "../examples/pipeline/pipeline.wrap"

// benchRuns returns n runs of the spec as request lines (an open, then
// the steps of an unmutated walk, each with its state and answers) for
// the run ids run0..run{n-1}.
func benchRuns(b *testing.B, n int) [][][]byte {
	prog := compile(b, benchSpec)
	w := &walker{prog: prog, mach: prog.NewMachine(), rnd: rand.New(rand.NewPCG(1, 2))}
	w.mach.RecordAnswers(true)
	out := make([][][]byte, n)
	for i := range out {
		lines, _ := w.walk(40, false)
		id := fmt.Sprintf("run%d", i)
		for k, l := range lines {
			req := guard.Request{Run: id, ID: fmt.Sprint(k), Event: l}
			if k == 0 {
				req.Op = "open"
			}
			js, _ := json.Marshal(req)
			out[i] = append(out[i], js)
		}
	}
	return out
}

// p99 reports the 99th percentile of ds in microseconds.
func reportLatency(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)*99/100].Nanoseconds())/1e3, "p99-µs")
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, "p50-µs")
}

// BenchmarkDecide measures the in-process decision of a step of
// examples/pipeline (the envelope and the event decoded, the step taken,
// the invariants checked), one decision an iteration, through HandleLine
// (the answer a new slice); p99-µs is the figure (≤ 10 µs).
func BenchmarkDecide(b *testing.B) {
	benchDecide(b, (*guard.Guard).HandleLine)
}

// BenchmarkDecideAppend is BenchmarkDecide through AppendHandleLine with
// one buffer reused for every answer, as the guard's servers call it.
func BenchmarkDecideAppend(b *testing.B) {
	var out []byte
	benchDecide(b, func(g *guard.Guard, line []byte) []byte {
		out = g.AppendHandleLine(out[:0], line)
		return out
	})
}

// benchDecide is BenchmarkDecide with handle deciding a line.
func benchDecide(b *testing.B, handle func(g *guard.Guard, line []byte) []byte) {
	runs := benchRuns(b, 64)
	g, err := guard.New(compile(b, benchSpec), guard.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	var opens, steps []time.Duration
	r, k := 0, 0
	b.ResetTimer()
	for range b.N {
		if k == len(runs[r]) {
			handle(g, []byte(`{"op": "close", "run": "run`+fmt.Sprint(r)+`"}`))
			r, k = (r+1)%len(runs), 0
		}
		t0 := time.Now()
		handle(g, runs[r][k])
		d := time.Since(t0)
		ds = append(ds, d)
		if k == 0 {
			opens = append(opens, d)
		} else {
			steps = append(steps, d)
		}
		k++
	}
	b.StopTimer()
	reportLatency(b, ds)
	if len(opens) > 0 && len(steps) > 0 {
		slices.Sort(opens)
		slices.Sort(steps)
		b.ReportMetric(float64(steps[len(steps)*99/100].Nanoseconds())/1e3, "step-p99-µs")
		b.ReportMetric(float64(opens[len(opens)*99/100].Nanoseconds())/1e3, "open-p99-µs")
	}
}

// BenchmarkDecideHTTP measures a decision over HTTP on loopback with
// 1,000 open runs and 8 concurrent clients (the figure: p99 ≤ 1 ms
// on a 2-core machine), without a journal, the guard's server and its
// clients in this process. Two kinds of client: Go's net/http client
// (client=net-http) and one that writes each request on its own
// keep-alive connection and reads the answer by its Content-Length
// (client=raw), as a load generator such as wrk does: the clients share
// the 2 cores with the server, and net/http's client costs more CPU a
// request than the server's whole answer.
func BenchmarkDecideHTTP(b *testing.B) {
	benchClients(b, func(b *testing.B, c clientKind) {
		g, runs := benchGuard(b)
		benchHTTP(b, inProcess(b, g.Handler), runs, c)
	})
}

// BenchmarkHTTPFloor is BenchmarkDecideHTTP with a server that reads each
// request and answers a fixed decision without deciding: the latency of
// the HTTP exchange alone (server and clients in this process), the floor
// under BenchmarkDecideHTTP's.
func BenchmarkHTTPFloor(b *testing.B) {
	allow := []byte(`{"run":"run0","decision":"allow","step":1,"allowed":["wrapper.render"]}` + "\n")
	benchClients(b, func(b *testing.B, c clientKind) {
		_, runs := benchGuard(b)
		benchHTTP(b, inProcess(b, func(loopback.Gate) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.ReadAll(http.MaxBytesReader(w, r.Body, guard.MaxRequestBytes))
				w.Header().Set("Content-Type", "application/json")
				w.Write(allow)
			})
		}), runs, c)
	})
}

// BenchmarkDecideHTTPProcess is BenchmarkDecideHTTP against the built
// binary in its own process, as an agent loop reaches it, with the
// clients in this one: `wrapcheck guard --listen 127.0.0.1:0` (tcp) and
// `--listen unix:PATH` (unix), with the flags in
// $WRAPCHECK_BENCH_GUARD_FLAGS (e.g. --procs 2) added.
func BenchmarkDecideHTTPProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "wrapcheck")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/wrapcheck").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, network := range []string{"tcp", "unix"} {
		b.Run(network, func(b *testing.B) {
			benchClients(b, func(b *testing.B, c clientKind) {
				benchHTTP(b, startGuard(b, bin, network), benchRuns(b, benchOpen), c)
			})
		})
	}
}

// startGuard starts `bin guard` of the bench spec listening on network
// (tcp: a loopback port; unix: a socket in a temporary directory) until
// the benchmark ends, and returns its target.
func startGuard(b *testing.B, bin, network string) target {
	dir := b.TempDir()
	tokenFile := filepath.Join(dir, "token")
	listen := "127.0.0.1:0"
	if network == "unix" {
		listen = "unix:" + filepath.Join(dir, "guard.sock")
	}
	args := append([]string{"guard", "--listen", listen, "--token-file", tokenFile}, strings.Fields(os.Getenv("WRAPCHECK_BENCH_GUARD_FLAGS"))...)
	cmd := exec.Command(bin, append(args, benchSpec)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// "wrapcheck guard: listening on http://127.0.0.1:PORT (token in FILE)", or unix:PATH
	line, err := bufio.NewReader(stderr).ReadString('\n')
	where, ok := strings.CutPrefix(line, "wrapcheck guard: listening on ")
	if !ok {
		b.Fatalf("guard said %q, %v", line, err)
	}
	where, _, _ = strings.Cut(where, " (token in ")
	go io.Copy(io.Discard, stderr)
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		b.Fatal(err)
	}
	t := target{network: network, addr: strings.TrimPrefix(where, "http://"), host: "localhost", token: strings.TrimSpace(string(token))}
	if sock, ok := strings.CutPrefix(where, "unix:"); ok {
		t.addr = sock
	} else {
		t.host = t.addr
	}
	return t
}

// benchOpen and benchClientsN are the figures: open runs and
// concurrent clients.
const benchOpen, benchClientsN = 1000, 8

// clientKind names a kind of benchmark client: Go's net/http client or
// the raw one (BenchmarkDecideHTTP).
type clientKind string

// benchClients runs f for each kind of client, a sub-benchmark each.
func benchClients(b *testing.B, f func(b *testing.B, c clientKind)) {
	for _, c := range []clientKind{"net-http", "raw"} {
		b.Run("client="+string(c), func(b *testing.B) { f(b, c) })
	}
}

// benchGuard returns a guard of the bench spec and the requests of
// benchOpen runs.
func benchGuard(b *testing.B) (*guard.Guard, [][][]byte) {
	g, err := guard.New(compile(b, benchSpec), guard.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return g, benchRuns(b, benchOpen)
}

// target is a guard's HTTP server: its network (tcp or unix) and address
// there, the Host its requests name, and its token.
type target struct{ network, addr, host, token string }

// inProcess serves the handler that handler makes of the server's gate
// in this process, at the collector's pace of `wrapcheck guard`
// (guard.ServeGCPercent, unless $GOGC is set), until the benchmark ends.
func inProcess(b *testing.B, handler func(loopback.Gate) http.Handler) target {
	if os.Getenv("GOGC") == "" { // the collector's pace `wrapcheck guard` serves at
		old := debug.SetGCPercent(guard.ServeGCPercent)
		b.Cleanup(func() { debug.SetGCPercent(old) })
	}
	srv := httptest.NewServer(nil)
	addr := strings.TrimPrefix(srv.URL, "http://")
	_, port, _ := strings.Cut(addr, ":")
	srv.Config.Handler = handler(loopback.Gate{Token: "t", Port: port})
	b.Cleanup(srv.Close)
	return target{network: "tcp", addr: addr, host: addr, token: "t"}
}

// benchHTTP opens the runs at t, then times the requests of their steps
// from benchClientsN concurrent clients of kind c, reopening a run whose
// walk is over.
func benchHTTP(b *testing.B, t target, runs [][][]byte, c clientKind) {
	var client *http.Client // shared by the net/http clients, as one agent's
	if c == "net-http" {
		client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClientsN,
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, t.network, t.addr)
			}}}
		b.Cleanup(client.CloseIdleConnections)
	}
	open := newPoster(b, t, client)
	for _, r := range runs {
		if !open(r[0]) {
			return
		}
	}
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	per := b.N/benchClientsN + 1
	b.ResetTimer()
	for c0 := range benchClientsN {
		post := newPoster(b, t, client)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds := make([]time.Duration, 0, per)
			pos := map[int]int{}
			for i := range per {
				r := (c0 + i*benchClientsN) % len(runs)
				k := pos[r] + 1
				if k >= len(runs[r]) { // the walk is over: reopen the run
					if !post([]byte(fmt.Sprintf(`{"op": "close", "run": "run%d"}`, r))) || !post(runs[r][0]) {
						break
					}
					k = 1
				}
				if k >= len(runs[r]) {
					continue
				}
				pos[r] = k
				t0 := time.Now()
				if !post(runs[r][k]) {
					break
				}
				ds = append(ds, time.Since(t0))
			}
			mu.Lock()
			all = append(all, ds...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	b.StopTimer()
	reportLatency(b, all)
}

// newPoster returns a function that posts a request to t, reads its
// answer and reports whether it was a decision: through client, Go's
// net/http client, or when nil on a keep-alive connection of its own.
// A failure is the benchmark's error.
func newPoster(b *testing.B, t target, client *http.Client) func(body []byte) bool {
	if client != nil {
		url := "http://" + t.host + "/v1/decide"
		return func(body []byte) bool {
			req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(loopback.TokenHeader, t.token)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return false
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return false
			}
			return true
		}
	}
	conn, err := net.Dial(t.network, t.addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	br := bufio.NewReader(conn)
	head := []byte("POST /v1/decide HTTP/1.1\r\nHost: " + t.host + "\r\nContent-Type: application/json\r\n" +
		loopback.TokenHeader + ": " + t.token + "\r\nContent-Length: ")
	buf := make([]byte, 0, 4096)
	return func(body []byte) bool {
		buf = append(append(buf[:0], head...), strconv.Itoa(len(body))...)
		buf = append(append(buf, "\r\n\r\n"...), body...)
		if _, err := conn.Write(buf); err != nil {
			b.Error(err)
			return false
		}
		status, err := br.ReadSlice('\n')
		if err != nil || !bytes.HasPrefix(status, []byte("HTTP/1.1 200 ")) {
			b.Errorf("answer %q, %v", status, err)
			return false
		}
		n := -1
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				b.Error(err)
				return false
			}
			if len(line) <= 2 { // the blank line
				break
			}
			if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
				n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
			}
		}
		if n < 0 {
			b.Error("an answer without Content-Length")
			return false
		}
		_, err = br.Discard(n)
		return err == nil
	}
}

// BenchmarkRunMemory reports the heap an open run of examples/pipeline
// holds after its walk (bytes/run), over 1,000 open runs.
func BenchmarkRunMemory(b *testing.B) {
	runs := benchRuns(b, 1000)
	prog := compile(b, benchSpec)
	for range b.N {
		g, err := guard.New(prog, guard.Options{})
		if err != nil {
			b.Fatal(err)
		}
		// the guard's own memory (its decoders, its buffers) before
		g.HandleLine(runs[0][0])
		g.HandleLine([]byte(`{"op": "close", "run": "run0"}`))
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, r := range runs {
			for _, l := range r[:len(r)-1] { // the last step may end the run
				g.HandleLine(l)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(g.Runs()), "bytes/run")
		runtime.KeepAlive(g)
	}
}
