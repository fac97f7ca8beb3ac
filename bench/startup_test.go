package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	render "github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// startupSpec is the README's example, the spec of the start-up target
// (`wrapcheck check` of it in under 10 ms wall).
const startupSpec = "../docs/testdata/readme/toctou.wrap"

// BenchmarkStartup times each phase `wrapcheck check` runs on the README
// example, in process (the process start itself is measured from outside:
// docs/performance.md, "Start-up"): parse (syntax.Parse), check (resolve,
// type check, lower: spec.Check), vet, compile (machine.Compile), search
// (verify.Run on the compiled program, one worker as on a one-core CI
// runner and two as on this machine) and render (report text).
func BenchmarkStartup(b *testing.B) {
	src, err := os.ReadFile(startupSpec)
	if err != nil {
		b.Fatal(err)
	}
	file, err := syntax.Parse("toctou.wrap", src)
	if err != nil {
		b.Fatal(err)
	}
	m, err := spec.Check(file, spec.Options{})
	if err != nil {
		b.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	res, err := verify.Run(ctx, m, verify.Options{Program: prog, Workers: 1})
	if err != nil || res.Verdict != verdict.Violated {
		b.Fatalf("verdict %v, %v; want violated", res.Verdict, err)
	}
	// run times one phase; the machine is shared, so the process's CPU
	// time per op (cpu-us/op) is the steadier figure.
	run := func(name string, f func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			cpu0 := cpuTime()
			for b.Loop() {
				f(b)
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
	run("parse", func(b *testing.B) {
		if _, err := syntax.Parse("toctou.wrap", src); err != nil {
			b.Fatal(err)
		}
	})
	run("check", func(b *testing.B) {
		if _, err := spec.Check(file, spec.Options{}); err != nil {
			b.Fatal(err)
		}
	})
	run("vet", func(b *testing.B) { spec.Vet(file, m) })
	run("compile", func(b *testing.B) {
		if _, err := machine.Compile(m); err != nil {
			b.Fatal(err)
		}
	})
	for _, w := range []int{1, 2} {
		run("search-w"+string(rune('0'+w)), func(b *testing.B) {
			if _, err := verify.Run(ctx, m, verify.Options{Program: prog, Workers: w}); err != nil {
				b.Fatal(err)
			}
		})
	}
	run("render", func(b *testing.B) {
		if err := (render.TextOptions{Explain: true, Program: prog}).Render(io.Discard, m, res); err != nil {
			b.Fatal(err)
		}
	})
}

// startupChildEnv makes the test binary, re-executed by
// BenchmarkStartupFirstUse, time one fresh run of the phases and exit.
const startupChildEnv = "WRAPCHECK_STARTUP_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(startupChildEnv) == "1" {
		if err := startupChild(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// phase is the cost of one phase of a fresh process: its wall time and
// the bytes it allocated.
type phase struct {
	Name  string
	Nanos int64
	Bytes uint64
}

// startupPhases are the phases of `wrapcheck check` on the README
// example, in order, each run once in a fresh process: the first parse
// builds the participle grammar (sync.OnceValue), which later parses
// reuse; the first search allocates the store.
func startupPhases() []func() error {
	var (
		src  []byte
		file *syntax.File
		m    *spec.Model
		prog *machine.Program
		res  *verdict.Result
	)
	return []func() error{
		func() (err error) { src, err = os.ReadFile(startupSpec); return err },
		func() (err error) { file, err = syntax.Parse("toctou.wrap", src); return err },
		func() (err error) { _, err = syntax.Parse("toctou.wrap", src); return err },
		func() (err error) { m, err = spec.Check(file, spec.Options{}); return err },
		func() error { spec.Vet(file, m); return nil },
		func() (err error) { prog, err = machine.Compile(m); return err },
		func() (err error) {
			res, err = verify.Run(context.Background(), m, verify.Options{Program: prog})
			return err
		},
		func() error {
			return render.TextOptions{Explain: true, Program: prog}.Render(io.Discard, m, res)
		},
	}
}

var startupNames = []string{"read", "parse-first", "parse-again", "check", "vet", "compile", "search", "render"}

// startupChild runs the phases once and writes their costs as JSON.
func startupChild(w io.Writer) error {
	allocs := func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms) // outside the timed part
		return ms.TotalAlloc
	}
	var out []phase
	for i, f := range startupPhases() {
		a0, t0 := allocs(), time.Now()
		if err := f(); err != nil {
			return err
		}
		out = append(out, phase{Name: startupNames[i], Nanos: time.Since(t0).Nanoseconds(), Bytes: allocs() - a0})
	}
	return json.NewEncoder(w).Encode(out)
}

// BenchmarkStartupFirstUse runs each phase of `check` once in a fresh
// process (this test binary, re-executed) and reports the median and the
// minimum of each phase over the ops, in microseconds (<phase>-us,
// <phase>-min-us), and the KiB it allocates (<phase>-KiB): what a one-shot `wrapcheck check` pays, first-use costs
// included, which the loops of BenchmarkStartup amortise away.
func BenchmarkStartupFirstUse(b *testing.B) {
	var runs [][]phase
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), startupChildEnv+"=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var ps []phase
		if err := json.Unmarshal(out, &ps); err != nil {
			b.Fatalf("child output: %v\n%s", err, out)
		}
		runs = append(runs, ps)
	}
	for i, name := range startupNames {
		ns := make([]int64, len(runs))
		for k, ps := range runs {
			ns[k] = ps[i].Nanos
		}
		slices.Sort(ns)
		b.ReportMetric(float64(ns[len(ns)/2])/1e3, name+"-us")
		b.ReportMetric(float64(ns[0])/1e3, name+"-min-us")
		b.ReportMetric(float64(runs[0][i].Bytes)/1024, name+"-KiB")
	}
	b.ReportMetric(0, "ns/op")
}
