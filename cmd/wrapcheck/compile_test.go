package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/native"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// fallbackSpecs use forms the generator does not support (exact integers,
// a choose over a record type, a let inside an expression, a let with a
// range): those units keep their closures, the rest is generated.
var fallbackSpecs = map[string]string{
	"exact.wrap": `spec Exact
var a: -3..3 = 1
var n: 0..3
action step when n < 3 { a := -a  n := n + 1 }
invariant U3: a * 3000000000 * 4000000000 / 4000000000 == 3000000000 * a
invariant Small: n <= 3
`,
	"choose_record.wrap": `spec ChooseRecord
type P = record { x: 0..2, y: bool }
var p: P
var k: 0..5
action pick when k < 5 {
  choose q in P where q.x != p.x { p := q }
  k := k + 1
}
action bad when k == 5 { k := k + p.x }
invariant Ok: k <= 5
`,
	"lets.wrap": `spec Lets
var a: 0..7
var b: 0..7
fn sq(x: 0..7): 0..49 = x * x
action inc when a < 7 {
  let r = a / 2
  a := a + 1
  b := r
}
action dec when a > 0 { a := a - 1 }
invariant Bound: sq(a) <= 49 and b < 4
`,
}

// secondsRE matches the timings of a report (and the peak heap), which
// differ from run to run.
var secondsRE = regexp.MustCompile(`"[a-z_]*seconds": ?[0-9.e+-]+|(?m)(transitions, depth [0-9]+), .*$`)

// TestCompiledAgrees builds one binary with the generated code of every
// example, of the specs above and of random specs of internal/gen (with
// channels too), and
// compares its check output (JSON, and text for the traces) with the
// closure engine's, byte for byte but the timings, with 1 and 2 workers.
// It checks that the binary does run generated code for each model, and
// that the specs above fall back for some units.
func TestCompiledAgrees(t *testing.T) {
	goTool, gocache := needGoBuild(t)
	paths, err := filepath.Glob("../../examples/*/*.wrap")
	if err != nil || len(paths) < 20 {
		t.Fatalf("examples: %v (%d)", err, len(paths))
	}
	dir := t.TempDir()
	fallback := map[string]bool{}
	for name, src := range fallbackSpecs {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		fallback[p] = true
	}
	shapes := []gen.Config{{Shape: gen.Mixed}, {Shape: gen.Symmetric, Failing: true}, {Shape: gen.Symmetric}, {Shape: gen.Exact}}
	for i := range 36 {
		c := shapes[i%len(shapes)]
		c.Index = i
		g := gen.Generate(rand.New(rand.NewPCG(uint64(i), 22)), c)
		p := filepath.Join(dir, fmt.Sprintf("gen%02d.wrap", i))
		if err := os.WriteFile(p, []byte(g.Source), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// Channels (an extension) lower to records, arrays and pairs of
	// actions: their generated code too (the examples with channels are
	// in peers/).
	for i := range 6 {
		g := gen.Generate(rand.New(rand.NewPCG(uint64(i), 23)), gen.Config{Shape: gen.Channels})
		p := filepath.Join(dir, fmt.Sprintf("chan%02d.wrap", i))
		if err := os.WriteFile(p, []byte(g.Source), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// One build: check --compile of every spec at once (the binary of
	// that set, in the cache), compared with the closures' run of them all.
	// A fresh cache for the binaries, but go's own build cache kept: it
	// lies under XDG_CACHE_HOME too unless GOCACHE names it, and a cold
	// one makes the build take minutes instead of seconds.
	t.Setenv("GOCACHE", gocache)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv(native.DirEnv, "")
	norm := func(s string) string { return secondsRE.ReplaceAllString(s, "${1}T") }
	all := append([]string{"check", "--workers", "1", "--format", "json"}, paths...)
	var out, errb, cout, cerr bytes.Buffer
	code := run(all, &out, &errb)
	start := time.Now()
	ccode := run(append([]string{"check", "--compile"}, all[1:]...), &cout, &cerr)
	t.Logf("%d specs, check --compile with its go build: %.1fs", len(paths), time.Since(start).Seconds())
	building, crest, _ := strings.Cut(cerr.String(), "\n")
	if !strings.Contains(building, "--compile: building") {
		t.Errorf("check --compile: no build: %q", cerr.String())
	}
	if code != ccode {
		t.Errorf("check of all: exit code %d, compiled %d", code, ccode)
	}
	if d := cmp.Diff(norm(out.String()), norm(cout.String())); d != "" {
		t.Errorf("check of all: stdout (-closures +compiled):\n%s", d)
	}
	if d := cmp.Diff(norm(errb.String()), norm(crest)); d != "" {
		t.Errorf("check of all: stderr (-closures +compiled):\n%s", d)
	}
	// The same set of specs finds that binary in the cache.
	srcs := nativeSources(context.Background(), &cobra.Command{}, paths, nil)
	var log bytes.Buffer
	bin, release, err := nativeBinary(context.Background(), goTool, srcs, &log)
	if err != nil || log.Len() > 0 {
		t.Fatalf("the binary is not in the cache: %v %s", err, log.String())
	}
	defer release()
	var units, native int
	for _, path := range paths {
		for _, args := range [][]string{
			{"check", "--workers", "1", "--format", "json", path},
			{"check", "--workers", "2", "--format", "json", path},
			{"check", "--workers", "1", path},
		} {
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			ncode, nout, stats, rest := runNative(t, bin, args)
			if stats == "" {
				if code != exitUsage || fallback[path] {
					t.Errorf("%s: no native statistics: %q", args, rest)
				}
			} else {
				f := strings.Fields(stats)
				n, _ := strconv.Atoi(f[4])
				u, _ := strconv.Atoi(f[6])
				if n == 0 {
					t.Errorf("%s: no unit runs generated code (%s)", args, stats)
				}
				if fallback[path] && n == u {
					t.Errorf("%s: the fallback was not taken (%s)", args, stats)
				}
				if args[2] == "1" && args[3] == "--format" {
					units += u
					native += n
				}
			}
			if code != ncode {
				t.Errorf("%s: exit code %d, compiled %d", args, code, ncode)
			}
			if d := cmp.Diff(norm(out.String()), norm(nout)); d != "" {
				t.Errorf("%s: stdout (-closures +compiled):\n%s", args, d)
			}
			if d := cmp.Diff(norm(errb.String()), norm(rest)); d != "" {
				t.Errorf("%s: stderr (-closures +compiled):\n%s", args, d)
			}
		}
	}
	t.Logf("generated code for %d of %d units", native, units)
	// The compiled binary as a distributed search: two local workers
	// over a file:// store give plain check's report.
	for i, path := range paths[:6] {
		store := filepath.Join(dir, fmt.Sprintf("store%d", i))
		if err := os.Mkdir(store, 0o755); err != nil {
			t.Fatal(err)
		}
		var out, errb, nout, nerr bytes.Buffer
		code := run([]string{"check", "--workers", "2", "--format", "json", path}, &out, &errb)
		c := exec.Command(bin, "check", "--workers", "2", "--format", "json", "--store", "file://"+store, "--workers-local", "2", path)
		c.Stdout, c.Stderr = &nout, &nerr
		ncode := exitCode(t, c.Run())
		if code != ncode {
			t.Errorf("%s --store: exit code %d, compiled %d (%s)", path, code, ncode, nerr.String())
		}
		if d := cmp.Diff(norm(out.String()), norm(nout.String())); d != "" {
			t.Errorf("%s --store: stdout (-closures +compiled):\n%s", path, d)
		}
	}
	// `worker --compile` (worker 0, which reports, here; its binary is
	// built for this one spec) with worker 1 in the compiled binary above.
	path, store := paths[0], filepath.Join(dir, "workers")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	var pout, perr, wout, werr bytes.Buffer
	code = run([]string{"check", "--workers", "2", "--format", "json", path}, &pout, &perr)
	w1 := exec.Command(bin, "worker", "--format", "json", "--store", "file://"+store, "--index", "1", "--workers", "2", path)
	var w1err bytes.Buffer
	w1.Stderr = &w1err
	if err := w1.Start(); err != nil {
		t.Fatal(err)
	}
	wcode := run([]string{"worker", "--compile", "--format", "json", "--store", "file://" + store, "--index", "0", "--workers", "2", path}, &wout, &werr)
	if err := w1.Wait(); err != nil && code == 0 {
		t.Errorf("worker 1: %v %s", err, w1err.String())
	}
	if code != wcode || !strings.Contains(werr.String(), "--compile: building") {
		t.Errorf("worker --compile: exit code %d, check %d; stderr %q", wcode, code, werr.String())
	}
	if d := cmp.Diff(norm(pout.String()), norm(wout.String())); d != "" {
		t.Errorf("worker --compile: stdout (-check +worker):\n%s", d)
	}
	if native*10 < units*8 {
		t.Errorf("generated code for only %d of %d units", native, units)
	}
}

// TestCompileNoToolchain checks that --compile without a Go toolchain on
// PATH is a usage error that says so.
func TestCompileNoToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "../../examples/classic/diehard.wrap"}, &out, &errb)
	want := "--compile: no Go toolchain (go) on PATH: install Go, or run without --compile\n"
	if d := cmp.Diff([2]any{exitUsage, want}, [2]any{code, errb.String()}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestCompiledSignal sends SIGTERM to the process of `check --compile`
// alone (not to its process group), as a job runner's cancellation or
// `timeout` does: the compiled child must get it, stop, and its exit code
// (3, stopped early) come back, instead of the child running on.
func TestCompiledSignal(t *testing.T) {
	goTool, gocache := needGoBuild(t)
	bin, dir := buildBinary(t)
	// An initial state of 10^9 choices: the search runs for minutes.
	spec := writeSpec(t, dir, "long.wrap", "spec Long\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n")
	env := append(os.Environ(), "GOCACHE="+gocache, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), native.DirEnv+"=")
	start := func() (*exec.Cmd, *bytes.Buffer) {
		c := exec.Command(bin, "check", "--compile", "--progress", "off", spec)
		c.Env = env
		var errb bytes.Buffer
		c.Stdout, c.Stderr = &errb, &errb
		c.WaitDelay = 5 * time.Second // a child left running keeps the pipes open
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c, &errb
	}
	// The compiled binary built first, here (the same entry: the same
	// source and spec), so that the signal below reaches a running check,
	// not the build (which --timeout and signals end: TestCompileBuildStops).
	t.Setenv("GOCACHE", gocache)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv(native.DirEnv, "")
	var log bytes.Buffer
	_, release, err := nativeBinary(context.Background(), goTool, nativeSources(context.Background(), &cobra.Command{}, []string{spec}, nil), &log)
	if err != nil {
		t.Fatalf("build: %v\n%s", err, log.String())
	}
	release()
	c, errb := start()
	time.Sleep(2 * time.Second)
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	timer := time.AfterFunc(30*time.Second, func() { c.Process.Kill() })
	c.Wait()
	timer.Stop()
	if code := c.ProcessState.ExitCode(); code != exitIncomplete || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("after SIGTERM: exit %d, stderr %.300q; want exit 3, interrupted", code, errb.String())
	} else {
		t.Logf("exit 3: %.200q", errb.String())
	}
	if took := time.Since(begin); took > 10*time.Second {
		t.Errorf("stopped %v after SIGTERM, want under 10s", took)
	}
}

// runNative runs the compiled binary bin with args and nativeStatsEnv set,
// and returns its exit code, its standard output, its line of native
// statistics ("" when it printed none) and the rest of its standard error.
func runNative(t *testing.T, bin string, args []string) (code int, stdout, stats, stderr string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Env = append(os.Environ(), nativeStatsEnv+"=1")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	code = exitCode(t, c.Run())
	stats, rest, _ := strings.Cut(errb.String(), "\n")
	if !strings.HasPrefix(stats, "wrapcheck: native code for ") {
		return code, out.String(), "", errb.String()
	}
	return code, out.String(), stats, rest
}

// needGoBuild skips a test that runs `check --compile`'s go build where
// it cannot or should not run, and returns the go tool and go's build
// cache (GOCACHE: it lies under XDG_CACHE_HOME unless named, so a test
// that gives the compiled binaries a fresh cache directory must keep it,
// or every build is cold). The build takes seconds on a warm build cache
// and minutes on a cold one (over 10 on a loaded machine): under CI the
// test always runs; elsewhere it needs a -timeout of 20m or more, rather
// than failing the package at go test's default of 10m.
func needGoBuild(t testing.TB) (goTool, gocache string) {
	t.Helper()
	if testenv.Short(t) {
		t.Skip("runs go build")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no Go toolchain on PATH")
	}
	// go test's -timeout, which t.Deadline reports (a fuzz target has no
	// Deadline).
	if fl := flag.Lookup("test.timeout"); fl != nil && os.Getenv("CI") == "" {
		if d, err := time.ParseDuration(fl.Value.String()); err == nil && d > 0 && d < 20*time.Minute {
			t.Skip("builds a binary: run with -timeout 20m or more (always run under CI)")
		}
	}
	out, err := exec.Command(goTool, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	return goTool, strings.TrimSpace(string(out))
}

// exitCode is the exit code of a process that err (its Run's result)
// says ended, failing the test when it did not run at all.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	return ee.ExitCode()
}
