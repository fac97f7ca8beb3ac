package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// latest is the recorded table that bench/bar.sh compares with.
const latest = "../peers/latest.tsv"

// copyTable returns a deep copy of t, so that a case can change cells.
func copyTable(t *table) *table {
	c := &table{name: t.name}
	for _, r := range t.rows {
		n := row{}
		for k, v := range r {
			n[k] = v
		}
		c.rows = append(c.rows, n)
	}
	return c
}

// TestCompare compares the recorded table with copies of it changed as
// each case says, and checks which figures fail.
func TestCompare(t *testing.T) {
	rec, err := readTable(latest)
	if err != nil {
		t.Fatal(err)
	}
	// scale multiplies a cell of row key by f, keeping two decimals.
	scale := func(key, col string, f float64) func(*table) {
		return func(run *table) {
			for _, r := range run.rows {
				if r.key() == key {
					v, err := strconv.ParseFloat(r[col], 64)
					if err != nil {
						t.Fatalf("%s %s: %v", key, col, err)
					}
					r[col] = strconv.FormatFloat(v*f, 'f', 2, 64)
				}
			}
		}
	}
	set := func(key, col, v string) func(*table) {
		return func(run *table) {
			for _, r := range run.rows {
				if r.key() == key {
					r[col] = v
				}
			}
		}
	}
	drop := func(key string) func(*table) {
		return func(run *table) {
			var rows []row
			for _, r := range run.rows {
				if r.key() != key {
					rows = append(rows, r)
				}
			}
			run.rows = rows
		}
	}
	tests := []struct {
		name    string
		change  []func(*table)
		tol     float64
		want    []string // failing figures: key/label/verdict
		notRun  []string
		notInTb []string
	}{
		{name: "same", tol: 0.10},
		{name: "within the tolerance", tol: 0.10, change: []func(*table){
			scale("pipeline K=3 N=2", "w1_spin", 0.92), scale("pipeline K=2 N=4", "w2_w1", 0.91),
			scale("mutex N=6", "bps_wc", 1.09)}},
		{name: "a ratio drops beyond it", tol: 0.10, change: []func(*table){
			scale("pipeline K=3 N=2", "w1_spin", 0.85), scale("pipeline K=6 N=1", "w2_w1", 0.80)},
			want: []string{"pipeline K=3 N=2/w1÷SPIN/REGRESSED", "pipeline K=6 N=1/w2÷w1/REGRESSED"}},
		{name: "a wider tolerance passes it", tol: 0.20, change: []func(*table){
			scale("pipeline K=3 N=2", "w1_spin", 0.85)}},
		{name: "a rise is no regression", tol: 0.10, change: []func(*table){
			scale("pipeline K=3 N=2", "w1_spin", 1.5), scale("toctou D=3 M=10", "bps_compact", 0.5)}},
		{name: "bytes per state grow", tol: 0.10, change: []func(*table){
			scale("toctou D=3 M=10", "bps_compact", 1.2)},
			want: []string{"toctou D=3 M=10/B/state compact/REGRESSED"}},
		{name: "the rounding of short times widens the bar", tol: 0.10, change: []func(*table){
			// mutex N=5: 0.11 and 0.12 s, 17% and 8% of which is a
			// hundredth of a second: 20% down is within 10% + 17% + 8%.
			scale("mutex N=5", "w1_spin", 0.80)}},
		{name: "counts differ", tol: 0.10, change: []func(*table){
			set("philo N=14", "states", "228487"), set("mutex N=6", "reduced_states", "4790")},
			want: []string{"philo N=14/states/COUNT MISMATCH", "mutex N=6/reduced states/COUNT MISMATCH"}},
		{name: "the tools disagree", tol: 0.10, change: []func(*table){
			set("mutex N=5", "counts", "DISAGREE spin/dfs-noreduce=104432/338790, wrapcheck/w1=104431/338788")},
			want: []string{"mutex N=5/tools agree/COUNT MISMATCH"}},
		{name: "a figure is missing", tol: 0.10, change: []func(*table){
			set("pipeline K=2 N=4", "w2_w1", "-"), set("pipeline K=2 N=4", "w2_s", "-")},
			want: []string{"pipeline K=2 N=4/w2÷w1/MISSING"}},
		{name: "a quick run", tol: 0.10, change: []func(*table){
			drop("mutex N=6"), drop("pipeline K=6 N=1"), drop("pipeline K=2 N=4"),
			drop("pipeline K=4 N=1"), drop("pipeline K=5 N=1")},
			notRun: []string{"mutex N=6", "pipeline K=6 N=1", "pipeline K=2 N=4", "pipeline K=4 N=1", "pipeline K=5 N=1"}},
		{name: "a new row", tol: 0.10, change: []func(*table){
			func(run *table) {
				r := row{}
				for k, v := range run.rows[0] {
					r[k] = v
				}
				r["params"] = "K=9 N=9"
				run.rows = append(run.rows, r)
			}},
			notInTb: []string{"pipeline K=9 N=9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := copyTable(rec)
			for _, f := range tt.change {
				f(run)
			}
			res := compare(rec, run, tt.tol)
			var got []string
			for _, l := range res.lines {
				if l.isFail {
					got = append(got, l.key+"/"+l.label+"/"+l.verdict)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failing figures (-want +got):\n%s", diff)
			}
			if res.failed() != (len(tt.want) > 0) {
				t.Errorf("failed() = %v with %d failing figures", res.failed(), len(tt.want))
			}
			if diff := cmp.Diff(tt.notRun, res.notRun); diff != "" {
				t.Errorf("not run (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.notInTb, res.notInTable); diff != "" {
				t.Errorf("not recorded (-want +got):\n%s", diff)
			}
			var out bytes.Buffer
			res.write(&out, tt.tol)
			last := out.String()[strings.LastIndex(strings.TrimSuffix(out.String(), "\n"), "\n")+1:]
			if wantPass := len(tt.want) == 0; strings.HasPrefix(last, "bar: pass") != wantPass {
				t.Errorf("verdict line %q, want pass = %v", last, wantPass)
			}
		})
	}
}

// TestCompareAllFigures checks that every figure of the recorded table
// is compared: each of its numeric cells, made 50% worse, fails, but for
// those whose times are so short that their rounding alone allows that.
func TestCompareAllFigures(t *testing.T) {
	rec, err := readTable(latest)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figures() {
		for i, r := range rec.rows {
			v, err := number(r[f.col])
			if err != nil {
				continue
			}
			// Figures of runs of a few hundredths of a second are within
			// the rounding of their times (tolerance + q of 50% or more):
			// not gated in effect.
			q := 0.0
			for _, tc := range f.times {
				if a, err := number(r[tc]); err == nil {
					q += 0.01 / max(a, 0.01)
				}
			}
			if 0.10+q >= 0.5 {
				continue
			}
			run := copyTable(rec)
			worse := v * 0.5
			if !f.higher {
				worse = v * 2
			}
			run.rows[i][f.col] = strconv.FormatFloat(worse, 'f', 2, 64)
			res := compare(rec, run, 0.10)
			if !res.failed() {
				t.Errorf("%s %s: %s made %v passes", r.key(), f.label, r[f.col], worse)
			}
		}
	}
}

func TestParseTable(t *testing.T) {
	head := strings.Join(strings.Fields(columnNames), "\t")
	cells := strings.Join(strings.Fields("a b 1 - - - - - - - - - - - - - - - - - agree"), "\t")
	tests := []struct {
		name, src, wantErr string
	}{
		{"ok", "# comment\n" + head + "\n" + cells + "\n", ""},
		{"no header", "", "x.tsv: no header line"},
		{"wrong header", "model\tparams\n", `x.tsv:1: header "model params", want the columns`},
		{"short row", head + "\na\tb\n", "x.tsv:2: 2 cells, want 21"},
		{"second row", head + "\n" + cells + "\n" + cells + "\n", "x.tsv:3: second row of a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseTable("x.tsv", strings.NewReader(tt.src))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.wantErr == "" && got != "" || tt.wantErr != "" && !strings.HasPrefix(got, tt.wantErr) {
				t.Errorf("error %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// TestLatestInDoc checks that the table of docs/performance.md "Latest
// figures" is the one bench/table.py --markdown makes of latest.tsv.
func TestLatestInDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/performance.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Latest figures\n")
	if !ok {
		t.Fatal(`docs/performance.md has no section "Latest figures"`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var got []string
	for _, l := range strings.Split(sec, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| model |") {
			got = append(got, l)
		}
	}
	rec, err := readTable(latest)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rec.rows {
		want = append(want, markdown(r))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/performance.md's table is not bench/peers/latest.tsv's: run bench/table.py --markdown %s (-want +got):\n%s", latest, diff)
	}
}

// markdown is bench/table.py's markdown line of a row.
func markdown(r row) string {
	d := func(c string) string {
		if r[c] == "-" {
			return "–"
		}
		return r[c]
	}
	thousands := func(s string) string {
		if s == "-" {
			return "–"
		}
		var b strings.Builder
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	rate := d("w1_rate")
	if r["w1_rate"] != "-" {
		rate += " M"
	}
	red := d("reduced_s")
	if r["reduced_states"] != "-" {
		red += " (" + thousands(r["reduced_states"]) + ")"
	}
	peer := d("peer_reduced_s")
	if r["peer_reduced"] != "-" {
		peer += " (" + r["peer_reduced"] + ")"
	}
	cells := []string{r["model"], r["params"], thousands(r["states"]), d("spin_s"), d("rumur_t1_s"), d("w1_s"), rate,
		d("w1_spin"), d("w1_spin_cpu"), d("w1_rumur5"), d("w2_s"), d("w2_w1"),
		d("bps_wc"), d("bps_spin"), d("bps_compact"), red, peer, d("peer_wc"), r["counts"]}
	return "| " + strings.Join(cells, " | ") + " |"
}

// abTSV writes ab.sh's raw TSV for rounds of one configuration per
// model: build a at cpu a, build b at cpu times b[round], both with the
// given counts (b's counts bCounts).
func abTSV(rounds int, a float64, b []float64, counts, bCounts string) string {
	var w strings.Builder
	for r := range rounds {
		for _, m := range []string{"pipeline K=3 N=2", "toctou D=3 M=10"} {
			for _, flags := range []string{"--no-symmetry --no-por --workers 1", ""} {
				w.WriteString(strconv.Itoa(r) + "\t" + m + "\t" + flags + "\ta\t" + counts + "\t0.50\t" + strconv.FormatFloat(a, 'f', 2, 64) + "\n")
				w.WriteString(strconv.Itoa(r) + "\t" + m + "\t" + flags + "\tb\t" + bCounts + "\t0.50\t" + strconv.FormatFloat(b[r], 'f', 2, 64) + "\n")
			}
		}
	}
	return w.String()
}

// TestCompareAB checks the A/B bar: equal builds pass, a median CPU
// ratio past the tolerance and its rounding fails (one slow round does
// not), a count that differs fails, and a run under the timing's
// resolution is compared without dividing by zero.
func TestCompareAB(t *testing.T) {
	const counts = "970299\t3910599"
	for _, tt := range []struct {
		name    string
		b       []float64
		bCounts string
		fails   int
		counts  int
	}{
		{"equal", []float64{0.40, 0.40, 0.40}, counts, 0, 0},
		{"one slow round", []float64{0.40, 0.60, 0.41}, counts, 0, 0},
		{"within the tolerance and rounding", []float64{0.45, 0.46, 0.45}, counts, 0, 0},
		{"slower", []float64{0.48, 0.49, 0.48}, counts, 4, 0},
		{"faster", []float64{0.30, 0.31, 0.30}, counts, 0, 0},
		{"counts", []float64{0.40, 0.40, 0.40}, "970298\t3910599", 4, 4},
	} {
		res, err := compareAB("ab.tsv", strings.NewReader(abTSV(3, 0.40, tt.b, counts, tt.bCounts)), 0.10)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		fails, countFails := 0, 0
		for _, l := range res.lines {
			if l.isFail {
				fails++
			}
			if l.isCountFail {
				countFails++
			}
		}
		if len(res.lines) != 4 || fails != tt.fails || countFails != tt.counts || res.failed() != (tt.fails > 0) {
			var out bytes.Buffer
			res.write(&out, 0.10)
			t.Errorf("%s: %d lines, %d failed (%d counts), want 4, %d (%d):\n%s", tt.name, len(res.lines), fails, countFails, tt.fails, tt.counts, out.String())
		}
	}
	// Under the resolution: 0.00 against 0.01 s.
	res, err := compareAB("ab.tsv", strings.NewReader("0\tmutex N=5\t\ta\t1288\t9000\t0.01\t0.00\n0\tmutex N=5\t\tb\t1288\t9000\t0.01\t0.01\n"), 0.10)
	if err != nil || res.failed() {
		t.Errorf("a run under the resolution: %v, failed %v", err, res != nil && res.failed())
	}
	for _, bad := range []string{"", "0\tm\tf\ta\t1\t2\t0.1\n", "x\tm\tf\ta\t1\t2\t0.1\t0.1\n", "0\tm\tf\tc\t1\t2\t0.1\t0.1\n"} {
		if _, err := compareAB("ab.tsv", strings.NewReader(bad), 0.10); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestCountsOnly checks that -counts-only keeps the count failures and
// turns the figures' into "moved".
func TestCountsOnly(t *testing.T) {
	rec, err := readTable(latest)
	if err != nil {
		t.Fatal(err)
	}
	run := copyTable(rec)
	run.rows[0]["w1_spin"] = "0.01"
	run.rows[1]["states"] = "1"
	res := compare(rec, run, 0.10)
	res.countsOnly()
	moved, fails := 0, 0
	for _, l := range res.lines {
		if l.verdict == "moved" {
			moved++
		}
		if l.isFail {
			fails++
			if !l.isCountFail {
				t.Errorf("%s %s: a figure fails under -counts-only", l.key, l.label)
			}
		}
	}
	if moved != 1 || fails != 1 || !res.failed() {
		t.Errorf("%d moved, %d failed, want 1 and 1", moved, fails)
	}
}
