// Command cluster is the model of N machines of bench/cluster.sh and
// docs/distributed.md ("A model of N machines"): it reads the runs that
// bench/cluster.sh made (each worker's log of its store operations,
// WRAPCHECK_STORE_LOG), fits the CPU a worker spends on a level to what
// the level asks of it, checks the model's latency term against the
// measured wall times, and predicts the speed-up of N machines over one on
// the pipeline of K=4 runs (96,059,601 states).
//
//	go run ./bench/cluster OUT                       # OUT of bench/cluster.sh
//	go run ./bench/cluster -record runs.tsv OUT      # also write the table the test reads
//	go run ./bench/cluster -table bench/cluster/testdata/runs.tsv   # a recorded table
//	go run ./bench/cluster -table ... -owners NAME=TABLE ... -record-shapes FILE
//	go run ./bench/cluster -table ... -shapes bench/cluster/testdata/owners.tsv
//
// The last two add the owner functions of check --partition (owners.go):
// the crossing fraction and imbalance that runs of bench/cluster.sh with
// PART measured, and the predictions with them.
//
// The model of one breadth-first level on N workers, read from
// cluster/search.go: each worker expands its part of the level and sends
// each successor to the worker that owns it (a batch file per other
// worker), reads the batches sent to it, merges, writes its states file
// and then its summary, and reads every other summary (the commit). The
// requests of one kind go out together, at most c = 64 in flight
// (cluster's ioConcurrency; 16 before this model showed what it cost on
// 64 workers), so a level costs a worker
//
//	r(N) = 2 + 3·⌈(N−1)/c⌉ round trips (N ≥ 2; one worker: 2)
//
// on its critical path: the batches' creates, their reads, the states
// file, the summary, the summaries' reads. A level on N machines takes
//
//	max over workers of its CPU + r(N)·ℓ + bytes(level, N)/bandwidth
//
// and a worker's CPU on a level is a·successors + b·crossing + z, fitted
// by least squares to every worker's every level of the runs at latency
// 0 of no more workers than the machine has cores (-fitmax, 2 where the
// recorded runs were made: with more processes than cores each pays for
// sharing them, in switches, caches and the polling of the workers that
// wait, and the CPU a crossing record grew from 64 ns on 2 workers to 97
// on 4 and 179 on 8, which a machine of its own per worker does not pay):
// successors are those its states make (its expanded states times the
// model's transitions per state), crossing are the records it sends to
// and receives from other workers (encoded, written, read, decoded).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ioConcurrency is cluster's bound on the store requests one worker has
// in flight (cluster/search.go); oldConcurrency the bound before it.
const (
	ioConcurrency  = 64
	oldConcurrency = 16
)

// defaultFitMax is the most workers of a run whose levels the CPU
// model is fitted to: the cores of the machine the recorded runs were
// made on.
const defaultFitMax = 2

func main() {
	record := flag.String("record", "", "write the per-run table to this file")
	table := flag.String("table", "", "read a recorded per-run table instead of runs (several, comma-separated, of one K: their runs together)")
	k := flag.Int("k", 3, "the runs are of the pipeline of K runs (bench/cluster.sh: 3): its transitions a state are K·133/99")
	bw := flag.Float64("bandwidth", 1e9, "bytes per second of one worker's store traffic, for the predictions")
	fitMax := flag.Int("fitmax", defaultFitMax, "fit the CPU model to the runs of at most this many workers (the machine's cores)")
	var owners ownerFlags
	flag.Var(&owners, "owners", "NAME=TABLE: predict also with the crossing fraction and imbalance measured in the runs of TABLE (written by -record from the runs of bench/cluster.sh with PART) at each N (repeatable; the tables of one NAME merge)")
	shapesIn := flag.String("shapes", "", "read the owners' crossing fractions and imbalances from this table (written by -record-shapes) instead of -owners")
	shapesOut := flag.String("record-shapes", "", "write the crossing fractions and imbalances of the -owners runs to this table")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/cluster [-record FILE] OUT | -table FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	var m *measured
	var err error
	switch {
	case *table != "":
		m, err = readTables(strings.Split(*table, ","))
	case flag.NArg() == 1:
		m, err = readRuns(flag.Arg(0), *k)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(2)
	}
	if *record != "" {
		f, err := os.Create(*record)
		if err == nil {
			err = m.write(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cluster:", err)
			os.Exit(2)
		}
	}
	if err := report(os.Stdout, m, *bw, *fitMax); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
	if len(owners) > 0 || *shapesIn != "" {
		var sh *shapes
		if *shapesIn != "" {
			sh, err = readShapesTable(*shapesIn)
		} else {
			sh, err = readShapes(owners)
		}
		if err == nil && *shapesOut != "" {
			err = sh.writeFile(*shapesOut)
		}
		if err == nil {
			err = reportOwners(os.Stdout, m, sh, *bw, *fitMax)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cluster:", err)
			os.Exit(1)
		}
	}
}

// roundTrips is r(N) of the package comment: the store requests on one
// worker's critical path of a level, with c in flight.
func roundTrips(n, c int) int {
	if n == 1 {
		return 2
	}
	return 2 + 3*((n-2)/c+1)
}

// An op is a line of a worker's log (cluster.Recorder).
type op struct {
	kind, key        string
	start, end       float64 // seconds
	cpu0, cpu1       float64
	bytes, records   int64
	result           string
	frame            string // batch, states, summary, ... ("" : not a level's frame)
	level, src, dest int
}

// parseKey reads a frame's key: sS/LDDDDDD/KIND-I[-J].wc of search 0.
func (o *op) parseKey() {
	parts := strings.Split(o.key, "/")
	if len(parts) != 3 || parts[0] != "s0" || !strings.HasPrefix(parts[1], "L") || !strings.HasSuffix(parts[2], ".wc") {
		return
	}
	lv, err := strconv.Atoi(parts[1][1:])
	if err != nil {
		return
	}
	f := strings.Split(strings.TrimSuffix(parts[2], ".wc"), "-")
	if len(f) < 2 {
		return
	}
	src, err := strconv.Atoi(f[1])
	if err != nil {
		return
	}
	dst := src
	if len(f) == 3 {
		if dst, err = strconv.Atoi(f[2]); err != nil {
			return
		}
	}
	o.frame, o.level, o.src, o.dest = f[0], lv, src, dst
}

// step returns the level whose expansion the op belongs to: a batch of
// level L is sent while expanding L, the states and summary of L are
// written after it (expanding L−1); -1: none (the manifest, the lease).
func (o *op) step() int {
	switch o.frame {
	case "batch", "reply", "rest":
		return o.level
	case "states", "summary":
		return o.level - 1
	}
	return -1
}

func readLog(path string) ([]op, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ops []op
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 9 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 9", path, line, len(c))
		}
		var n [6]int64
		for i := range n {
			if n[i], err = strconv.ParseInt(c[2+i], 10, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
		}
		o := op{kind: c[0], key: c[1], start: float64(n[0]) / 1e9, end: float64(n[1]) / 1e9,
			cpu0: float64(n[2]) / 1e9, cpu1: float64(n[3]) / 1e9, bytes: n[4], records: n[5], result: c[8]}
		o.parseKey()
		ops = append(ops, o)
	}
	return ops, sc.Err()
}

// A level is what one worker did on one level of one run.
type level struct {
	cpu, wall         float64 // from the end of the last level's ops to the end of this one's
	expanded          int64   // its states of the level (from its states file of the level)
	created           int64   // new states it owns in the next level
	sent, received    int64   // batch records
	ops, polls        int     // store operations; reads that found no file
	written, read     int64   // bytes
	batchB, batchR    int64   // batch bytes and records written
	statesB, summaryB int64   // states and summary bytes written
	summaryR          int64   // summary records written (keys)
}

// A run is one run of bench/cluster.sh: N workers at latency ms.
type run struct {
	n          int
	latency    float64 // seconds
	wall, cpu  float64 // /usr/bin/time's, all processes
	status     string
	levels     [][]level // [worker][step]
	profile    []int64   // states per level (level 0 the initial states)
	logCPU     float64   // the workers' CPU as their logs end
	opTime     float64   // mean duration of a store operation
	steps      int
	criticalRT float64 // mean round trips a level on the critical path of the slowest worker
	ops, polls int     // store operations of the levels, and reads that found no file
}

// measured is what the runs give the model: per run its figures, and
// the level profile of one pipeline run (K=1) to scale from.
type measured struct {
	runs     []*run
	profile1 []int64 // states per level, K=1
	transK   float64 // transitions per state of the measured model (K=3 N=2)
}

// The pipeline's closed forms (examples/peers/pipeline.wrap): S1 states
// and E1 transitions of one run of N=2 steps; K runs: S1^K states and
// K·E1·S1^(K−1) transitions.
const (
	s1 = 99
	e1 = 133
)

func perState(k int) float64 { return float64(k) * e1 / s1 }

func readRuns(dir string, k int) (*measured, error) {
	m := &measured{transK: perState(k)}
	prof, err := readLog(filepath.Join(dir, "profile", "log", "ops-0.tsv"))
	if err != nil {
		return nil, err
	}
	m.profile1 = []int64{1}
	for _, o := range prof {
		if o.kind == "create" && o.frame == "states" {
			for len(m.profile1) <= o.level {
				m.profile1 = append(m.profile1, 0)
			}
			m.profile1[o.level] += o.records
		}
	}
	for len(m.profile1) > 1 && m.profile1[len(m.profile1)-1] == 0 {
		m.profile1 = m.profile1[:len(m.profile1)-1]
	}
	b, err := os.ReadFile(filepath.Join(dir, "runs.tsv"))
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		c := strings.Split(line, "\t")
		if len(c) != 6 {
			return nil, fmt.Errorf("runs.tsv: %q: want 6 fields", line)
		}
		r := &run{status: c[4]}
		r.n, _ = strconv.Atoi(c[0])
		ms, _ := strconv.ParseFloat(c[1], 64)
		r.latency = ms / 1000
		r.wall, _ = strconv.ParseFloat(c[2], 64)
		r.cpu, _ = strconv.ParseFloat(c[3], 64)
		if r.status != "ok" {
			return nil, fmt.Errorf("run %s: %s", c[5], r.status)
		}
		if err := r.readLogs(filepath.Join(dir, c[5], "log")); err != nil {
			return nil, err
		}
		m.runs = append(m.runs, r)
	}
	return m, nil
}

// readLogs reads the run's N logs and makes its levels.
func (r *run) readLogs(dir string) error {
	logs := make([][]op, r.n)
	for i := range r.n {
		var err error
		if logs[i], err = readLog(filepath.Join(dir, fmt.Sprintf("ops-%d.tsv", i))); err != nil {
			return err
		}
	}
	steps := 0
	for _, ops := range logs {
		for _, o := range ops {
			steps = max(steps, o.step()+1)
		}
	}
	r.steps = steps
	r.levels = make([][]level, r.n)
	var opSum float64
	var opCount int
	for i, ops := range logs {
		lv := make([]level, steps)
		ends := make([]op, steps) // the op that ends each step
		var setup op
		for _, o := range ops {
			opSum += o.end - o.start
			opCount++
			s := o.step()
			if s < 0 {
				if setup.key == "" && o.kind == "create" && strings.HasPrefix(o.key, "lease/") {
					setup = o // the lease taken: the search starts
				}
				continue
			}
			l := &lv[s]
			l.ops++
			if o.result == "missing" {
				l.polls++
			}
			if o.end > ends[s].end {
				ends[s] = o
			}
			switch {
			case o.kind == "create" && o.result == "ok":
				l.written += o.bytes
				switch o.frame {
				case "batch":
					l.sent += o.records
					l.batchB += o.bytes
					l.batchR += o.records
				case "states":
					l.created = o.records
					l.statesB += o.bytes
					if s+1 < steps {
						lv[s+1].expanded = o.records
					}
				case "summary":
					l.summaryB += o.bytes
					l.summaryR += o.records
				}
			case o.kind == "read" && o.result == "ok":
				l.read += o.bytes
			}
		}
		prev := setup
		for s := range lv {
			if ends[s].key == "" {
				return fmt.Errorf("%s: worker %d has no operation of level %d", dir, i, s)
			}
			lv[s].cpu = ends[s].cpu1 - prev.cpu1
			lv[s].wall = ends[s].end - prev.end
			prev = ends[s]
		}
		r.logCPU += prev.cpu1
		r.levels[i] = lv
		for _, l := range lv {
			r.ops += l.ops
			r.polls += l.polls
		}
	}
	if opCount > 0 {
		r.opTime = opSum / float64(opCount)
	}
	// Received batch records, from the senders' logs.
	for j, ops := range logs {
		for _, o := range ops {
			if o.kind == "create" && o.frame == "batch" && o.result == "ok" && o.dest != j && o.dest < r.n {
				r.levels[o.dest][o.step()].received += o.records
			}
		}
	}
	// The level profile: the initial state, then the states files.
	r.profile = make([]int64, steps+1)
	r.profile[0] = 1
	for i := range r.n {
		for s, l := range r.levels[i] {
			r.profile[s+1] += l.created
		}
	}
	// Round trips on the critical path: per level, the most operations
	// of one worker that follow one another without overlapping
	// (requests in flight together count once), on the worker with the
	// most.
	var crit float64
	for s := range steps {
		most := 0
		for _, ops := range logs {
			var in []op
			for _, o := range ops {
				if o.step() == s {
					in = append(in, o)
				}
			}
			most = max(most, chain(in))
		}
		crit += float64(most)
	}
	r.criticalRT = crit / float64(steps)
	return nil
}

// chain returns the most operations of ops that follow one another
// without overlapping in time (earliest end first).
func chain(ops []op) int {
	sort.Slice(ops, func(a, b int) bool { return ops[a].end < ops[b].end })
	n, last := 0, math.Inf(-1)
	for _, o := range ops {
		if o.start >= last {
			n++
			last = o.end
		}
	}
	return n
}

// fit is the CPU model of a worker's level: a·successors + b·crossing + z
// seconds, and what a level moves: bytes per batch record, per states
// record, per summary key.
type fit struct {
	a, b, z             float64
	batchRec, statesRec float64
	keyRec              float64
	rows                int
	cpuErr              float64 // relative error of the fitted CPU of every run (Σ) against the logs'
}

// fitCPU fits the CPU model on every worker's every level of the runs
// at latency 0 of at most fitMax workers.
func fitCPU(m *measured, fitMax int) (fit, error) {
	var ata [3][3]float64
	var atb [3]float64
	var f fit
	var bb, br, sb, sr, kb, kr float64
	for _, r := range m.runs {
		for _, lv := range r.levels {
			for _, l := range lv {
				if r.latency != 0 {
					continue
				}
				if r.n > fitMax {
					continue
				}
				bb += float64(l.batchB)
				br += float64(l.batchR)
				sb += float64(l.statesB)
				sr += float64(l.created)
				kb += float64(l.summaryB)
				kr += float64(l.summaryR)
				x := [3]float64{float64(l.expanded) * m.transK, float64(l.sent + l.received), 1}
				for i := range 3 {
					for j := range 3 {
						ata[i][j] += x[i] * x[j]
					}
					atb[i] += x[i] * l.cpu
				}
				f.rows++
			}
		}
	}
	if f.rows < 3 {
		return f, errors.New("fewer than 3 levels at latency 0 to fit the CPU model to")
	}
	sol, ok := solve3(ata, atb)
	if !ok {
		return f, errors.New("the CPU model's equations are singular (no run with 2 or more workers at latency 0?)")
	}
	f.a, f.b, f.z = sol[0], sol[1], sol[2]
	if f.a <= 0 || f.b <= 0 {
		return f, fmt.Errorf("the CPU model's fit is %.3g s a successor and %.3g s a crossing record: it needs runs of one worker and of 2 to %d at latency 0", f.a, f.b, fitMax)
	}
	f.batchRec, f.statesRec, f.keyRec = bb/max(br, 1), sb/max(sr, 1), kb/max(kr, 1)
	return f, nil
}

// solve3 solves a 3×3 system by Gaussian elimination with pivoting.
func solve3(a [3][3]float64, b [3]float64) ([3]float64, bool) {
	for c := range 3 {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-300 {
			return b, false
		}
		a[c], a[p] = a[p], a[c]
		b[c], b[p] = b[p], b[c]
		for r := range 3 {
			if r == c {
				continue
			}
			k := a[r][c] / a[c][c]
			for j := c; j < 3; j++ {
				a[r][j] -= k * a[c][j]
			}
			b[r] -= k * b[c]
		}
	}
	return [3]float64{b[0] / a[0][0], b[1] / a[1][1], b[2] / a[2][2]}, true
}

// levelCPU is the fitted CPU of a worker's level.
func (f fit) levelCPU(l level, perState float64) float64 {
	return f.a*float64(l.expanded)*perState + f.b*float64(l.sent+l.received) + f.z
}

// convolve returns the level profile of the product of two independent
// systems: a state of depth d of the product is one of depth i of the
// first and d−i of the second (every action moves one of them).
func convolve(p, q []int64) []int64 {
	out := make([]int64, len(p)+len(q)-1)
	for i, x := range p {
		for j, y := range q {
			out[i+j] += x * y
		}
	}
	return out
}

// profileK returns the profile of K runs of the pipeline.
func profileK(p1 []int64, k int) []int64 {
	p := []int64{1}
	for range k {
		p = convolve(p, p1)
	}
	return p
}

// predict returns the model's time of the pipeline of profile prof on n
// machines at latency lat (seconds) with bandwidth bw (bytes/s) and c
// requests in flight per worker, and its parts: compute, latency and
// transfer, with the owners of the whole state's hash: a fraction
// (n−1)/n of the successors cross, and a level's CPU is the fitted one of
// a worker with the level's mean share and the imbalance of hashing F
// states to n workers (the expected maximum of n binomial shares, about
// F/n·(1+√(2·ln n·n/F))).
func (f fit) predict(prof []int64, perState float64, n int, lat, bw float64, c int) (total, compute, latency, transfer float64) {
	return f.predictShape(prof, perState, n, lat, bw, c, nil)
}

// predictShape is predict with the crossing fraction and the imbalance
// of sh (nil: the whole state's, as predict says): a fraction sh.f of
// the successors cross, and the busiest worker of a level has sh.level
// times the mean share of its successors and of their crossing records.
func (f fit) predictShape(prof []int64, perState float64, n int, lat, bw float64, c int, sh *shape) (total, compute, latency, transfer float64) {
	nf := float64(n)
	for d := range len(prof) {
		F := float64(prof[d])
		next := 0.0
		if d+1 < len(prof) {
			next = float64(prof[d+1])
		}
		succ := F * perState
		var cross, cpu float64
		if sh == nil {
			imb := 0.0
			if n > 1 && F > 0 {
				imb = math.Sqrt(2 * math.Log(nf) * nf / F)
			}
			cross = 2 * succ * (nf - 1) / (nf * nf)
			cpu = f.a*succ/nf*(1+imb) + f.b*cross + f.z
		} else {
			cross = 2 * succ / nf * sh.f
			cpu = (f.a*succ/nf+f.b*cross)*sh.level + f.z
		}
		bytes := cross*f.batchRec + next/nf*f.statesRec + next*f.keyRec
		compute += cpu
		latency += float64(roundTrips(n, c)) * lat
		transfer += bytes / bw
	}
	return compute + latency + transfer, compute, latency, transfer
}

// A slope is the latency term measured between two runs of N workers
// at latencies lo < hi: the wall time's growth over the levels' growth
// of a store operation's mean duration (the timers of the simulated
// latency overshoot it a little), in round trips a level, beside r(N).
type slope struct {
	n       int
	lo, hi  *run
	rEff    float64 // measured round trips a level
	rN      int     // the code's r(N)
	predict float64 // the model's wall time at hi: the wall at lo plus its latency term
}

// slopes returns, for every N, the slope between each two runs of
// consecutive latencies. The latency term of the model is
// (levels·r(N) + 4)·ℓ: the 4 are the operations before the first level
// (the manifest written and read, the leases listed and taken).
func slopes(m *measured) []slope {
	byN := map[int][]*run{}
	var ns []int
	for _, r := range m.runs {
		if byN[r.n] == nil {
			ns = append(ns, r.n)
		}
		byN[r.n] = append(byN[r.n], r)
	}
	sort.Ints(ns)
	var out []slope
	for _, n := range ns {
		rs := byN[n]
		sort.Slice(rs, func(a, b int) bool { return rs[a].latency < rs[b].latency })
		for k := 1; k < len(rs); k++ {
			lo, hi := rs[k-1], rs[k]
			d := hi.opTime - lo.opTime
			if d <= 0 {
				continue
			}
			rn := roundTrips(n, ioConcurrency)
			out = append(out, slope{n: n, lo: lo, hi: hi, rN: rn,
				rEff:    ((hi.wall-lo.wall)/d - 4) / float64(hi.steps),
				predict: lo.wall + float64(hi.steps*rn+4)*d})
		}
	}
	return out
}

func report(w io.Writer, m *measured, bw float64, fitMax int) error {
	f, err := fitCPU(m, fitMax)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "CPU model of a worker's level (least squares over %d worker-levels at latency 0, runs of at most %d workers):\n", f.rows, fitMax)
	fmt.Fprintf(w, "  %.1f ns a successor + %.1f ns a record sent or received + %.2f ms a level\n", f.a*1e9, f.b*1e9, f.z*1e3)
	fmt.Fprintf(w, "  bytes: %.1f a batch record, %.1f a states record, %.1f a summary key\n\n", f.batchRec, f.statesRec, f.keyRec)

	fmt.Fprintln(w, "| N | latency ms | levels | wall s | CPU s (time) | CPU s (logs) | CPU s (model) | ops/level/worker | polls/level/worker | critical RT/level | mean op ms |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range m.runs {
		var model float64
		for _, lv := range r.levels {
			for _, l := range lv {
				model += f.levelCPU(l, m.transK)
			}
		}
		wl := float64(r.n * r.steps)
		cpu := "" // the table keeps the levels of the runs at latency 0
		if r.latency == 0 {
			cpu = fmt.Sprintf("%.2f", model)
		}
		fmt.Fprintf(w, "| %d | %.0f | %d | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %.1f | %.2f |\n",
			r.n, r.latency*1e3, r.steps, r.wall, r.cpu, r.logCPU, cpu, float64(r.ops)/wl, float64(r.polls)/wl,
			r.criticalRT, r.opTime*1e3)
	}
	fmt.Fprintln(w, "\nThe latency term: wall time between two latencies, in round trips a level, against the code's r(N):")
	fmt.Fprintln(w, "| N | latency ms | wall s | model s | model ÷ measured | round trips a level, measured | r(N) |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|")
	for _, sl := range slopes(m) {
		fmt.Fprintf(w, "| %d | %.0f → %.0f | %.2f → %.2f | %.2f | %.2f | %.2f | %d |\n", sl.n, sl.lo.latency*1e3, sl.hi.latency*1e3,
			sl.lo.wall, sl.hi.wall, sl.predict, sl.predict/sl.hi.wall, sl.rEff, sl.rN)
	}
	if len(m.runs) > 0 && len(m.profile1) > 0 {
		p3 := profileK(m.profile1, 3)
		meas := m.runs[0].profile
		for len(meas) > 1 && meas[len(meas)-1] == 0 {
			meas = meas[:len(meas)-1]
		}
		ok := slices.Equal(p3, meas)
		fmt.Fprintf(w, "\nlevel profile: K=1 %v; its 3-fold convolution equals the measured K=3 profile: %t\n", m.profile1, ok)
	}
	p4 := profileK(m.profile1, 4)
	var total int64
	for _, x := range p4 {
		total += x
	}
	fmt.Fprintf(w, "\nPrediction: pipeline K=4 N=2, %d states, %d levels, %.2f transitions a state; bandwidth %.0f MB/s a worker (the last column: %.0f MB/s)\n",
		total, len(p4), perState(4), bw/1e6, bw/10/1e6)
	fmt.Fprintln(w, "| latency ms | N | in flight | T(1) s | T(N) s | compute s | latency s | transfer s | speed-up | ÷ N | ≥ 0.7·N | speed-up at a tenth of the bandwidth |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, lat := range []float64{0.005, 0.020, 0.050} {
		t1, _, _, _ := f.predict(p4, perState(4), 1, lat, bw, ioConcurrency)
		for _, n := range []int{4, 16, 64} {
			for _, c := range []int{oldConcurrency, ioConcurrency} {
				if c != ioConcurrency && n <= c+1 {
					continue // the same round trips
				}
				tn, comp, latT, tr := f.predict(p4, perState(4), n, lat, bw, c)
				s := t1 / tn
				slow1, _, _, _ := f.predict(p4, perState(4), 1, lat, bw/10, ioConcurrency)
				slowN, _, _, _ := f.predict(p4, perState(4), n, lat, bw/10, c)
				fmt.Fprintf(w, "| %.0f | %d | %d | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f | %.2f | %t | %.1f |\n",
					lat*1e3, n, c, t1, tn, comp, latT, tr, s, s/float64(n), s >= 0.7*float64(n), slow1/slowN)
			}
		}
	}
	return nil
}

// write writes the measurements as the table readTable reads: the K=1
// profile, a line per run and a line per worker's level.
func (m *measured) write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var p []string
	for _, x := range m.profile1 {
		p = append(p, strconv.FormatInt(x, 10))
	}
	fmt.Fprintf(bw, "profile1\t%s\n", strings.Join(p, ","))
	if k := math.Round(m.transK * s1 / e1); k != 3 {
		fmt.Fprintf(bw, "k\t%.0f\n", k) // the pipeline of K runs, not bench/cluster.sh's 3
	}
	for _, r := range m.runs {
		fmt.Fprintf(bw, "run\t%d\t%g\t%.2f\t%.2f\t%.4f\t%.6f\t%d\t%.3f\t%d\t%d\n", r.n, r.latency*1e3, r.wall, r.cpu, r.logCPU, r.opTime, r.steps, r.criticalRT, r.ops, r.polls)
	}
	for _, r := range m.runs {
		if r.latency != 0 {
			continue // the model reads the levels of the runs at latency 0
		}
		for i, lv := range r.levels {
			for s, l := range lv {
				fmt.Fprintf(bw, "level\t%d\t%g\t%d\t%d\t%.6f\t%.6f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n",
					r.n, r.latency*1e3, i, s, l.cpu, l.wall, l.expanded, l.created, l.sent, l.received,
					l.ops, l.polls, l.written, l.read, l.batchB, l.batchR, l.statesB, l.summaryB, l.summaryR)
			}
		}
	}
	return bw.Flush()
}

// readTables reads the tables that write wrote and returns their runs
// together: tables of one K and one level profile.
func readTables(paths []string) (*measured, error) {
	var all *measured
	for _, p := range paths {
		m, err := readTable(p)
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = m
			continue
		}
		if m.transK != all.transK || !slices.Equal(m.profile1, all.profile1) {
			return nil, fmt.Errorf("%s: another K or another profile than %s", p, paths[0])
		}
		all.runs = append(all.runs, m.runs...)
	}
	return all, nil
}

// readTable reads a table that write wrote.
func readTable(path string) (*measured, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := &measured{transK: perState(3)}
	runs := map[[2]float64]*run{}
	for ln, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		c := strings.Split(line, "\t")
		bad := func(err error) error { return fmt.Errorf("%s:%d: %v", path, ln+1, err) }
		nums := func(from int) ([]float64, error) {
			var out []float64
			for _, s := range c[from:] {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, bad(err)
				}
				out = append(out, x)
			}
			return out, nil
		}
		switch {
		case c[0] == "profile1" && len(c) == 2:
			for _, s := range strings.Split(c[1], ",") {
				x, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, bad(err)
				}
				m.profile1 = append(m.profile1, x)
			}
		case c[0] == "k" && len(c) == 2:
			k, err := strconv.Atoi(c[1])
			if err != nil || k < 1 {
				return nil, bad(fmt.Errorf("K %q", c[1]))
			}
			m.transK = perState(k)
		case c[0] == "run" && len(c) == 11:
			x, err := nums(1)
			if err != nil {
				return nil, err
			}
			r := &run{n: int(x[0]), latency: x[1] / 1e3, wall: x[2], cpu: x[3], logCPU: x[4], opTime: x[5],
				steps: int(x[6]), criticalRT: x[7], ops: int(x[8]), polls: int(x[9]), status: "ok"}
			r.levels = make([][]level, r.n)
			for i := range r.levels {
				r.levels[i] = make([]level, r.steps)
			}
			r.profile = make([]int64, r.steps+1)
			r.profile[0] = 1
			runs[[2]float64{x[0], x[1]}] = r
			m.runs = append(m.runs, r)
		case c[0] == "level" && len(c) == 20:
			x, err := nums(1)
			if err != nil {
				return nil, err
			}
			r, ok := runs[[2]float64{x[0], x[1]}]
			i, s := int(x[2]), int(x[3])
			if !ok || i < 0 || i >= r.n || s < 0 || s >= r.steps {
				return nil, bad(errors.New("a level of no run above"))
			}
			n := func(k int) int64 { return int64(x[k]) }
			r.levels[i][s] = level{cpu: x[4], wall: x[5], expanded: n(6), created: n(7), sent: n(8), received: n(9),
				ops: int(x[10]), polls: int(x[11]), written: n(12), read: n(13), batchB: n(14), batchR: n(15),
				statesB: n(16), summaryB: n(17), summaryR: n(18)}
			r.profile[s+1] += n(7)
		default:
			return nil, bad(fmt.Errorf("not a profile1, run or level line"))
		}
	}
	if len(m.profile1) == 0 || len(m.runs) == 0 {
		return nil, fmt.Errorf("%s: no profile or no runs", path)
	}
	return m, nil
}
