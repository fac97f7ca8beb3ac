package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// livenessModels are the models of issue 41's liveness target: CoffeeCan
// (one eventually property, every state initial) at the size of the
// issue (80,600 states) and at about 10^6, and the pipeline's LTL
// properties at K=3 N=2 without fairness and with the heartbeat and weak
// fairness per run (SPIN's fin and resp, docs/performance.md "Liveness
// against SPIN").
var livenessModels = []struct {
	name, path, prop string
	defines          map[string]int64
	nodes            int64 // the product's, checked
}{
	{"coffeecan-MAX400", "../ltl/testdata/coffeecan.wrap", "EventuallyOneBean", map[string]int64{"MAX": 400}, 80600},
	{"coffeecan-MAX1413", "../ltl/testdata/coffeecan.wrap", "EventuallyOneBean", map[string]int64{"MAX": 1413}, 1000404},
	{"fin", "../examples/peers/pipeline_ltl.wrap", "AllRunsEnd", map[string]int64{"K": 3, "N": 2}, 970299},
	{"resp", "../examples/peers/pipeline_ltl.wrap", "FailIsResolved", map[string]int64{"K": 3, "N": 2}, 1234920},
	{"fin-heartbeat-weak", "../examples/peers/pipeline_ltl_fair.wrap", "AllRunsEnd", map[string]int64{"K": 3, "N": 2, "HEARTBEAT": 1}, 1940598},
	{"resp-heartbeat-weak", "../examples/peers/pipeline_ltl_fair.wrap", "FailIsResolved", map[string]int64{"K": 3, "N": 2, "HEARTBEAT": 1}, 2469852},
}

// BenchmarkLiveness compares the check of one LTL property (ltl.Check,
// no reductions) with the safety search alone (checker.Run, one worker,
// no reductions) on the same model: issue 41 asks for the liveness check
// within 1.5× of the safety search, and for the bytes a product node
// keeps within 1.5× of the safety search's bytes per state.
//
// Each model has three rows. safety and liveness run one search each per
// op (for callgrind: the instructions of a row at -benchtime 2x less
// those at 1x are one search's). pair runs both per op, safety then
// liveness, so that the two share the machine's load, and reports:
// cpu-ratio, the liveness check's CPU seconds (user and system, the
// garbage collector's included) over the safety search's; safety-cpu-s
// and live-cpu-s, those per op; B/node, what the product keeps per node
// (ltl.PropertyStats.Bytes), safety-B/state, the safety store's bytes
// per state (verdict.Stats.BytesPerState), and B-ratio, the first over
// the second; heap-ratio, the peak Go heap of the liveness check over the
// safety search's (both sampled every millisecond by this benchmark, each
// after a collection), per node and per state.
//
//	go test -run XXX -bench 'Liveness/.*/pair' -benchtime 3x ./bench/
func BenchmarkLiveness(b *testing.B) {
	for _, lm := range livenessModels {
		b.Run(lm.name+"/safety", func(b *testing.B) {
			m := parseAt(b, lm.path, lm.defines)
			for b.Loop() {
				safetySearch(b, m)
			}
		})
		b.Run(lm.name+"/liveness", func(b *testing.B) {
			m := parseAt(b, lm.path, lm.defines)
			for b.Loop() {
				livenessCheck(b, m, lm.prop, lm.nodes)
			}
		})
		b.Run(lm.name+"/pair", func(b *testing.B) {
			m := parseAt(b, lm.path, lm.defines)
			var safeCPU, liveCPU time.Duration
			var safeHeap, liveHeap uint64
			var safe *verdict.Result
			var st ltl.PropertyStats
			for b.Loop() {
				var d time.Duration
				var h uint64
				d, h = measured(func() { safe = safetySearch(b, m) })
				safeCPU += d
				safeHeap = max(safeHeap, h)
				d, h = measured(func() { st = livenessCheck(b, m, lm.prop, lm.nodes) })
				liveCPU += d
				liveHeap = max(liveHeap, h)
			}
			n := float64(b.N)
			bNode := float64(st.Bytes) / float64(st.ProductNodes)
			heapNode := float64(liveHeap) / float64(st.ProductNodes)
			heapState := float64(safeHeap) / float64(safe.Stats.States)
			b.ReportMetric(liveCPU.Seconds()/safeCPU.Seconds(), "cpu-ratio")
			b.ReportMetric(safeCPU.Seconds()/n, "safety-cpu-s")
			b.ReportMetric(liveCPU.Seconds()/n, "live-cpu-s")
			b.ReportMetric(bNode, "B/node")
			b.ReportMetric(safe.Stats.BytesPerState, "safety-B/state")
			b.ReportMetric(bNode/safe.Stats.BytesPerState, "B-ratio")
			b.ReportMetric(heapNode, "heap-B/node")
			b.ReportMetric(heapState, "safety-heap-B/state")
			b.ReportMetric(heapNode/heapState, "heap-ratio")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// parseAt parses the spec at path with the constants defines.
func parseAt(b *testing.B, path string, defines map[string]int64) *spec.Model {
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	m, err := spec.ParseFile(filepath.Base(path), src, spec.Options{Defines: defines})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// safetySearch is the safety search alone: one worker, no reductions.
func safetySearch(b *testing.B, m *spec.Model) *verdict.Result {
	r, err := checker.Run(context.Background(), m, checker.Options{Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// livenessCheck checks property prop of m without reductions and
// returns its figures; the property must hold with a product of nodes
// nodes.
func livenessCheck(b *testing.B, m *spec.Model, prop string, nodes int64) ltl.PropertyStats {
	var st ltl.PropertyStats
	r, err := ltl.Check(context.Background(), m, ltl.Options{Only: []string{prop}, OnProperty: func(s ltl.PropertyStats) { st = s }})
	if err != nil {
		b.Fatal(err)
	}
	if r.Verdict != verdict.Holds || st.ProductNodes != nodes {
		b.Fatalf("%s: %v with %d product nodes, want holds with %d", prop, r.Verdict, st.ProductNodes, nodes)
	}
	return st
}

// measured runs f after a garbage collection and returns the CPU time
// it took (the process's, user and system) and the peak of the Go heap's
// objects above what was live before it, sampled every millisecond.
func measured(f func()) (time.Duration, uint64) {
	runtime.GC()
	base := verdict.HeapBytes()
	stop := make(chan struct{})
	var peak uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if h := verdict.HeapBytes(); h > peak {
				peak = h
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	c0 := cpuTime()
	f()
	d := cpuTime() - c0
	close(stop)
	wg.Wait()
	if h := verdict.HeapBytes(); h > peak {
		peak = h
	}
	return d, peak - min(peak, base)
}
