package ltl

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// BenchmarkCoffeeCan checks TLA+'s CoffeeCan (testdata/coffeecan.wrap,
// one eventually property that holds) at sizes from 10^4 to 10^7
// product nodes (MAX=4471: 10^7 nodes, about 1 GB and half a minute): the liveness time per node should not grow with the
// product. cpu-ns/node is the process's CPU time (user and system, the
// garbage collector's included) per node, less disturbed than the wall
// time by other processes on a busy machine; explore-, filter- and
// search-ns/node split it by phase (reportPhases). default is the check's
// default, nofilter the cycle search without the OWCTY filter in front.
//
//	go test -run XXX -bench CoffeeCan -benchtime 1x ./ltl/
func BenchmarkCoffeeCan(b *testing.B) {
	src, err := os.ReadFile("testdata/coffeecan.wrap")
	if err != nil {
		b.Fatal(err)
	}
	for _, max := range []int64{140, 445, 1413, 4471} {
		for _, mode := range []struct {
			name   string
			filter filterMode
		}{{"default", filterAuto}, {"nofilter", filterOff}} {
			b.Run(fmt.Sprintf("MAX=%d/%s", max, mode.name), func(b *testing.B) {
				coffeeCan(b, src, max, mode.filter)
			})
		}
	}
}

// coffeeCan is one row of BenchmarkCoffeeCan.
func coffeeCan(b *testing.B, src []byte, max int64, filter filterMode) {
	m, err := spec.ParseFile("coffeecan.wrap", src, spec.Options{Defines: map[string]int64{"MAX": max}})
	if err != nil {
		b.Fatal(err)
	}
	var st PropertyStats
	ph := &phaseStats{clock: cpuTime}
	opts := Options{OnProperty: func(s PropertyStats) { st = s }, filter: filter, phases: ph}
	res, cpu := checkN(b, m, opts)
	if res.Verdict != verdict.Holds {
		b.Fatalf("verdict %v, want holds", res.Verdict)
	}
	b.ReportMetric(float64(st.ProductNodes), "nodes")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(st.ProductNodes), "ns/node")
	b.ReportMetric(float64(cpu)/float64(st.ProductNodes), "cpu-ns/node")
	b.ReportMetric(float64(st.Bytes)/float64(st.ProductNodes), "B/node")
	reportPhases(b, ph, st.ProductNodes)
}

// checkN checks m b.N times with opts (the benchmark's timer reset
// first) and returns the last result and the process's CPU nanoseconds
// per check.
func checkN(b *testing.B, m *spec.Model, opts Options) (*verdict.Result, int64) {
	cpu0 := cpuTime()
	b.ResetTimer()
	var res *verdict.Result
	for n := 0; n < b.N; n++ {
		var err error
		res, err = Check(context.Background(), m, opts)
		if err != nil {
			b.Fatal(err)
		}
	}
	return res, (cpuTime() - cpu0) / int64(b.N)
}

// reportPhases reports the CPU time of the phases of ph per op and
// product node, and the cycle searches and the filter's rounds per op.
func reportPhases(b *testing.B, ph *phaseStats, nodes int64) {
	per := float64(b.N) * float64(nodes)
	b.ReportMetric(float64(ph.cpu[phaseExplore])/per, "explore-ns/node")
	b.ReportMetric(float64(ph.cpu[phaseFilter])/per, "filter-ns/node")
	b.ReportMetric(float64(ph.cpu[phaseSearch])/per, "search-ns/node")
	b.ReportMetric(float64(ph.checks)/float64(b.N), "checks")
	b.ReportMetric(float64(ph.rounds)/float64(b.N), "rounds")
}

// cpuTime returns the CPU time the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
