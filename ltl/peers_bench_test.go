package ltl

import (
	"os"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// BenchmarkPeers checks the LTL properties of the peers' pipeline model
// (examples/peers) at K=3 N=2, the figures of docs/performance.md's
// liveness tables: system states, product nodes and edges, and nodes/s,
// without reductions and with each, and the bytes the search keeps per
// product node (PropertyStats.Bytes); plain-nofilter is the plain product
// without the OWCTY filter in front of the cycle search, plain-filter with
// it also where weakly fair units make it a default off, plain-recompute
// the plain product with the system's successor lists computed again
// instead of kept (as under a memory budget), plain-compact the plain
// product under hash compaction (the system's states as fingerprints and
// derivations, Options.HashCompact). cpu-s/op and nodes/cpu-s
// count the process's CPU time (the garbage collector's included), the
// steadier figure on a busy machine; explore-, filter- and search-ns/node
// split it by phase, with the checkpoints and the filter's rounds
// (reportPhases). resp-run0 is SPIN's resp, for the
// first run alone (FailIsResolved quantifies over every run: its
// automaton has a state per run, and its product a node per state and
// run in which the run's step waits): the model with Run a range instead
// of a symmetric type (which has no literals) and the property for run 0.
//
//	go test -run XXX -bench Peers -benchtime 1x ./ltl/
func BenchmarkPeers(b *testing.B) {
	for _, bc := range []struct {
		name, file, prop string
		heartbeat        int64
	}{
		{"fin", "pipeline_ltl.wrap", "AllRunsEnd", 0},
		{"resp", "pipeline_ltl.wrap", "FailIsResolved", 0},
		{"resp-run0", "pipeline_ltl.wrap", "FailIsResolved0", 0},
		{"fin-heartbeat-weak", "pipeline_ltl_fair.wrap", "AllRunsEnd", 1},
		{"resp-heartbeat-weak", "pipeline_ltl_fair.wrap", "FailIsResolved", 1},
	} {
		for _, mode := range append([]struct {
			name string
			opts Options
		}{{"plain", Options{}}, {"plain-nofilter", Options{filter: filterOff}}, {"plain-filter", Options{filter: filterOn}},
			{"plain-recompute", Options{recompute: true}}, {"plain-compact", Options{HashCompact: true}}}, reductionModes...) {
			b.Run(bc.name+"/"+mode.name, func(b *testing.B) {
				path := "../examples/peers/" + bc.file
				src, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				if bc.prop == "FailIsResolved0" {
					src = []byte(strings.Replace(string(src), "type Run = symmetric K", "type Run = 0..K-1", 1) + resp0)
				}
				m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"K": 3, "N": 2, "HEARTBEAT": bc.heartbeat}})
				if err != nil {
					b.Fatal(err)
				}
				var st PropertyStats
				opts := mode.opts
				opts.Only = []string{bc.prop}
				opts.OnProperty = func(s PropertyStats) { st = s }
				ph := &phaseStats{clock: cpuTime}
				opts.phases = ph
				res, cpuNS := checkN(b, m, opts)
				b.ReportMetric(float64(res.Stats.States), "states")
				b.ReportMetric(float64(st.ProductNodes), "nodes")
				b.ReportMetric(float64(st.ProductEdges), "edges")
				b.ReportMetric(float64(st.ProductNodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
				cpu := float64(cpuNS) / 1e9
				b.ReportMetric(cpu, "cpu-s/op")
				b.ReportMetric(float64(st.ProductNodes)/cpu, "nodes/cpu-s")
				b.ReportMetric(float64(st.Bytes)/float64(st.ProductNodes), "B/node")
				reportPhases(b, ph, st.ProductNodes)
			})
		}
	}
}

// resp0 is SPIN's resp (bench/peers/models/pipeline.pml) on the wrapcheck
// model: the property FailIsResolved for run 0 alone.
const resp0 = `
property FailIsResolved0: always ((run[0].insp[0] == 1 and run[0].rel[0] == NONE) implies eventually (run[0].rel[0] != NONE or run[0].ph == STOPPED))
`
