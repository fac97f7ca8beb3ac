package ltl

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// BenchmarkCoffeeCan checks TLA+'s CoffeeCan (testdata/coffeecan.wrap,
// one eventually property that holds) at sizes from 10^4 to 10^7
// product nodes (MAX=4471: 10^7 nodes, about 1 GB and half a minute): the liveness time per node should not grow with the
// product. cpu-ns/node is the process's CPU time (user and system, the
// garbage collector's included) per node, less disturbed than the wall
// time by other processes on a busy machine.
//
//	go test -run XXX -bench CoffeeCan -benchtime 1x ./ltl/
func BenchmarkCoffeeCan(b *testing.B) {
	src, err := os.ReadFile("testdata/coffeecan.wrap")
	if err != nil {
		b.Fatal(err)
	}
	for _, max := range []int64{140, 445, 1413, 4471} {
		b.Run(fmt.Sprintf("MAX=%d", max), func(b *testing.B) {
			m, err := spec.ParseFile("coffeecan.wrap", src, spec.Options{Defines: map[string]int64{"MAX": max}})
			if err != nil {
				b.Fatal(err)
			}
			var st PropertyStats
			opts := Options{OnProperty: func(s PropertyStats) { st = s }}
			cpu0 := cpuTime()
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				res, err := Check(context.Background(), m, opts)
				if err != nil {
					b.Fatal(err)
				}
				if res.Verdict != checker.Holds {
					b.Fatalf("verdict %v, want holds", res.Verdict)
				}
			}
			b.ReportMetric(float64(st.ProductNodes), "nodes")
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(st.ProductNodes), "ns/node")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(st.ProductNodes), "cpu-ns/node")
			b.ReportMetric(float64(st.Bytes)/float64(st.ProductNodes), "B/node")
		})
	}
}

// cpuTime returns the CPU time the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
