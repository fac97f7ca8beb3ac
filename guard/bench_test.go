package guard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
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
// the invariants checked), one decision an iteration; p99-µs is the
// issue's figure (≤ 10 µs).
func BenchmarkDecide(b *testing.B) {
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
			g.HandleLine([]byte(`{"op": "close", "run": "run` + fmt.Sprint(r) + `"}`))
			r, k = (r+1)%len(runs), 0
		}
		t0 := time.Now()
		g.HandleLine(runs[r][k])
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
// on a 2-core machine), without a journal.
func BenchmarkDecideHTTP(b *testing.B) {
	benchHTTP(b, func(g *guard.Guard, port string) http.Handler {
		return g.Handler(loopback.Gate{Token: "t", Port: port})
	})
}

// BenchmarkHTTPFloor is BenchmarkDecideHTTP with a server that reads each
// request and answers a fixed decision without deciding: the latency of
// the HTTP exchange alone (server and clients in this process), the floor
// under BenchmarkDecideHTTP's.
func BenchmarkHTTPFloor(b *testing.B) {
	allow := []byte(`{"run":"run0","decision":"allow","step":1,"allowed":["wrapper.render"]}` + "\n")
	benchHTTP(b, func(*guard.Guard, string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(http.MaxBytesReader(w, r.Body, guard.MaxRequestBytes))
			w.Header().Set("Content-Type", "application/json")
			w.Write(allow)
		})
	})
}

// benchHTTP measures the requests of 1,000 open runs from 8 concurrent
// clients, posted to the handler that handler makes of the guard.
func benchHTTP(b *testing.B, handler func(g *guard.Guard, port string) http.Handler) {
	const open, clients = 1000, 8
	runs := benchRuns(b, open)
	g, err := guard.New(compile(b, benchSpec), guard.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(nil)
	_, port, _ := splitPort(srv.URL)
	srv.Config.Handler = handler(g, port)
	defer srv.Close()
	for _, r := range runs {
		g.HandleLine(r[0])
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	post := func(body []byte) {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/decide", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(loopback.TokenHeader, "t")
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	per := b.N/clients + 1
	b.ResetTimer()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ds []time.Duration
			pos := map[int]int{}
			for i := range per {
				r := (c + i*clients) % open
				k := pos[r] + 1
				if k >= len(runs[r]) { // the walk is over: reopen the run
					post([]byte(fmt.Sprintf(`{"op": "close", "run": "run%d"}`, r)))
					post(runs[r][0])
					k = 1
				}
				if k >= len(runs[r]) {
					continue
				}
				pos[r] = k
				t0 := time.Now()
				post(runs[r][k])
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

// BenchmarkRunMemory reports the heap an open run of examples/pipeline
// holds after its walk (bytes/run), over 1,000 open runs.
func BenchmarkRunMemory(b *testing.B) {
	runs := benchRuns(b, 1000)
	prog := compile(b, benchSpec)
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g, err := guard.New(prog, guard.Options{})
		if err != nil {
			b.Fatal(err)
		}
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

func splitPort(url string) (string, string, error) {
	i := bytes.LastIndexByte([]byte(url), ':')
	return url[:i], url[i+1:], nil
}
