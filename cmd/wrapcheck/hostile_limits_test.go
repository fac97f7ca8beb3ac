//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The reproducers of issue 34, item 1 and 13 (the repository's
// testdata/hostile):
//
//   - rtbomb.wrap: a 900-digit literal squared 40 times in one action;
//   - constbomb.wrap: constants, each the square of the one before;
//   - fnbomb.wrap: fn bodies that expand to 3000 × 500 × 500 operators;
//   - arr2.wrap: one state with 100,000 successors of 25 KB each.
//
// Before the fix check ran for minutes on rtbomb and constbomb, ignoring
// --timeout, SIGINT and SIGTERM; fnbomb took 11 GiB under --memory
// 300MiB (vet 4.8 GiB); arr2 1.6 GiB under --memory 200MiB; a FIFO as
// the spec blocked every command forever.

// hostileRun is the outcome of one run of the built binary.
type hostileRun struct {
	code   int
	out    string // stdout then stderr
	took   time.Duration
	rssMiB int64 // peak RSS
	// lag is the machine's, during the run: how late, at most, a
	// goroutine of the test woke from a 5 ms sleep. The time bounds
	// allow it on top of their second, so that a machine loaded far
	// past its cores (a load of 100 on 2) does not fail a run that the
	// kernel did not schedule; on an idle machine it is a millisecond.
	lag time.Duration
}

// over reports whether the run took longer than d and the machine's lag.
func (r hostileRun) over(d time.Duration) bool { return r.took > d+r.lag }

// runHostile runs bin with args; signal, when not 0, is sent after a
// second. A run still going after a minute is killed (and fails the
// test by its time).
func runHostile(t *testing.T, bin string, signal syscall.Signal, args ...string) hostileRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if signal != 0 {
		time.AfterFunc(time.Second, func() { cmd.Process.Signal(signal) })
	}
	return measure(cmd, start, func() string { return stdout.String() + stderr.String() })
}

// measure waits for c, started at start, killing it after a minute (the
// run then fails by its time), and returns its outcome with out() as its
// output.
func measure(c *exec.Cmd, start time.Time, out func() string) hostileRun {
	kill := time.AfterFunc(time.Minute, func() { c.Process.Kill() })
	rss := peakRSS(c)
	lag := probeLag()
	c.Wait()
	kill.Stop()
	r := hostileRun{code: c.ProcessState.ExitCode(), out: out(), took: time.Since(start)}
	r.rssMiB = rss() >> 20
	r.lag = lag()
	return r
}

// probeLag starts measuring how late a goroutine wakes from a 5 ms sleep;
// the function it returns stops and gives the most.
func probeLag() func() time.Duration {
	done := make(chan time.Duration)
	stop := make(chan struct{})
	go func() {
		var most time.Duration
		for {
			t0 := time.Now()
			select {
			case <-stop:
				done <- most
				return
			case <-time.After(5 * time.Millisecond):
			}
			most = max(most, time.Since(t0)-5*time.Millisecond)
		}
	}()
	return func() time.Duration {
		close(stop)
		return <-done
	}
}

// check asserts r's exit code, that its output holds each of want, that
// it ended within limit + 1 s (a limit of a minute or more is not
// timed) and, when mem is not 0, that its peak RSS stayed under mem +
// 100 MiB.
func (r hostileRun) check(t *testing.T, code int, want []string, limit time.Duration, mem int64) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\n%.2000s", r.code, code, r.out)
	}
	for _, w := range want {
		if !strings.Contains(r.out, w) {
			t.Errorf("output without %q:\n%.2000s", w, r.out)
		}
	}
	if limit < time.Minute && r.over(limit+time.Second) {
		t.Errorf("took %v, limit %v + 1s + the machine's lag %v", r.took, limit, r.lag)
	}
	if mem > 0 && r.rssMiB > mem+100 {
		t.Errorf("peak RSS %d MiB, limit %d MiB + 100", r.rssMiB, mem)
	}
}

// hostileSpec returns the path of a spec of the repository's corpus of
// hostile specs (testdata/hostile, which the servers' tests read too).
// bigwork.wrap is one whose one action computes, in each of a million
// branches, 2000 products and quotients of numbers of 6644 and 13288
// bits: within the bound on exact integers, it keeps check and simulate
// busy for hours in exact arithmetic, tens of milliseconds between two
// branches of the choose.
func hostileSpec(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// bigSpecSrc returns a 15 MB spec of 400,000 actions: loading it (parsing,
// checking, compiling) takes seconds.
func bigSpecSrc() string {
	var b strings.Builder
	b.WriteString("spec Big\nvar x: bool\n")
	for i := 0; b.Len() < 15<<20; i++ {
		fmt.Fprintf(&b, "action a%d when not x { x := not x }\n", i)
	}
	return b.String()
}

// TestHostileLimits runs check (--timeout 2s --memory 200MiB), simulate
// and vet (--timeout 2s) on each reproducer, on a spec that keeps the
// search busy in exact arithmetic and on one that takes seconds to load:
// each ends within its limit + 1 s, with a peak RSS under the memory
// limit + 100 MiB (300 MiB: simulate and vet, which have no --memory, are
// held to the same), with exit 3 and the reason, or the error it is
// (exit 2 with file:line:col for a spec refused as it loads, exit 1 for
// a runtime error). --memory covers loading too (fnbomb under 50MiB).
func TestHostileLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, dir := buildBinary(t)
	hostile := func(name string) string { return hostileSpec(t, name) }
	rtbomb, constbomb, fnbomb, arr2 := hostile("rtbomb.wrap"), hostile("constbomb.wrap"), hostile("fnbomb.wrap"), hostile("arr2.wrap")
	bigWork := hostile("bigwork.wrap")
	bigSpec := writeSpec(t, dir, "big.wrap", bigSpecSrc())
	const (
		tooLarge  = "integer result does not fit 16384 bits (the size bound on exact integers)"
		expansion = "fnbomb.wrap:4:639: fn calls expand to too large a program (more than 524288 operators once every call is expanded)"
		loading   = "note: stopped while loading the spec (reading, checking, compiling it): no state was explored"
	)
	check := []string{"check", "--timeout", "2s", "--memory", "200MiB"}
	simulate := []string{"simulate", "--timeout", "2s"}
	vet := []string{"vet", "--timeout", "2s"}
	with := func(cmd []string, args ...string) []string { return append(append([]string(nil), cmd...), args...) }
	// Where a bound or the memory budget is to stop a run, its deadline
	// is 10 s, so that a loaded machine does not reach the deadline
	// first.
	slow := func(cmd []string, args ...string) []string { return with(with(cmd, "--timeout", "10s"), args...) }
	tests := []struct {
		name  string
		args  []string
		code  int
		want  []string // in stdout or stderr
		limit time.Duration
		mem   int64 // MiB; 0: no RSS bound
	}{
		// rtbomb: the third square passes the bound (2990, 5980, 11960,
		// then 23920 bits): a runtime error, at once.
		{"check/rtbomb", with(check, rtbomb), exitViolated, []string{"RtBomb: runtime error in action go: " + tooLarge, "rtbomb.wrap:7:8: here"}, 2 * time.Second, 200},
		{"simulate/rtbomb", with(simulate, rtbomb), exitViolated, []string{"RtBomb: runtime error in action go: " + tooLarge}, 2 * time.Second, 200},
		{"vet/rtbomb", with(vet, rtbomb), exitHolds, nil, 2 * time.Second, 200},
		// constbomb: A3 = A2 * A2 passes it, as the constants are folded.
		{"check/constbomb", with(check, constbomb), exitUsage, []string{"constbomb.wrap:5:12: " + tooLarge}, 2 * time.Second, 200},
		{"simulate/constbomb", with(simulate, constbomb), exitUsage, []string{"constbomb.wrap:5:12: " + tooLarge}, 2 * time.Second, 200},
		{"vet/constbomb", with(vet, constbomb), exitUsage, []string{"constbomb.wrap:5:12: " + tooLarge}, 2 * time.Second, 200},
		// fnbomb: the step budget of fn expansion, or --memory first (0.9 s
		// on an idle machine, which a loaded CI runner may pass: these
		// cases give the deadline room, as it is not what they test).
		{"check/fnbomb", slow(check, fnbomb), exitUsage, []string{expansion}, 10 * time.Second, 200},
		{"check/fnbomb/50MiB", []string{"check", "--timeout", "10s", "--memory", "50MiB", fnbomb}, exitIncomplete,
			[]string{"fnbomb.wrap: incomplete: memory budget; no violation found in the states explored", loading}, 10 * time.Second, 50},
		{"simulate/fnbomb", slow(simulate, fnbomb), exitUsage, []string{expansion}, 10 * time.Second, 200},
		{"vet/fnbomb", slow(vet, fnbomb), exitUsage, []string{expansion}, 10 * time.Second, 200},
		// arr2: the budget, checked as the states of one level are made.
		{"check/arr2", slow(check, arr2), exitIncomplete, []string{"A: incomplete: memory budget; no violation found in the states explored"}, 10 * time.Second, 200},
		{"simulate/arr2", with(simulate, arr2), exitIncomplete, []string{"before the timeout"}, 2 * time.Second, 200},
		{"vet/arr2", with(vet, arr2), exitHolds, nil, 2 * time.Second, 200},
		// Exact arithmetic within the bound, for hours.
		{"check/bigwork", with(check, bigWork), exitIncomplete, []string{"BigWork: incomplete: timeout; no violation found in the states explored"}, 2 * time.Second, 200},
		// the time alone (TestHostileEveryCommand holds simulate's --memory)
		{"simulate/bigwork", with(simulate, bigWork), exitIncomplete, []string{"BigWork: no violation found in 0 walks", "before the timeout"}, 2 * time.Second, 0},
		// Loading for seconds: the limit ends it.
		// the deadline alone (a 15 MB spec's loading passes 200 MiB on a
		// fast machine before 2 s; the memory budget has its own case)
		{"check/load", []string{"check", "--timeout", "2s", "--memory", "1GiB", bigSpec}, exitIncomplete,
			[]string{"big.wrap: incomplete: timeout; no violation found in the states explored", loading}, 2 * time.Second, 1024},
		{"check/load/memory", []string{"check", "--memory", "100MiB", bigSpec}, exitIncomplete,
			[]string{"big.wrap: incomplete: memory budget", loading}, time.Minute, 100},
		{"simulate/load", with(simulate, bigSpec), exitIncomplete,
			[]string{"simulate: stopped while loading the spec: timeout (--timeout 2s)"}, 2 * time.Second, 0},
		{"vet/load", with(vet, bigSpec), exitIncomplete,
			[]string{"vet: stopped before the end: timeout (--timeout 2s)"}, 2 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runHostile(t, bin, 0, tt.args...)
			t.Logf("exit %d in %v, peak RSS %d MiB, lag %v", r.code, r.took.Round(time.Millisecond), r.rssMiB, r.lag.Round(time.Millisecond))
			r.check(t, tt.code, tt.want, tt.limit, tt.mem)
		})
	}
}

// TestHostileSignals sends SIGTERM and SIGINT a second after check and
// simulate start on a spec that keeps them busy in exact arithmetic
// (rtbomb itself now ends at once, with its runtime error), to check
// while it loads a spec, and to prob while it solves a chain exactly and
// while it builds a large MDP: each ends within a second of the signal, exit
// 3, "interrupted".
func TestHostileSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, dir := buildBinary(t)
	bigWork := hostileSpec(t, "bigwork.wrap")
	bigSpec := writeSpec(t, dir, "big.wrap", bigSpecSrc())
	probChain, probBomb := writeSpec(t, dir, "chain.wrap", probChainSrc), writeSpec(t, dir, "probbomb.wrap", probBombSrc)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"prob/chain", []string{"prob", "--witness", "--sensitivity", probChain}, "chain.wrap: interrupted"},
		{"prob/probbomb", []string{"prob", "--witness", "--sensitivity", probBomb}, "probbomb.wrap: interrupted"},
		{"check/bigwork", []string{"check", "--memory", "200MiB", bigWork}, "BigWork: incomplete: interrupted"},
		{"simulate/bigwork", []string{"simulate", bigWork}, "BigWork: no violation found in 0 walks of at most 100 steps (seed 1) before the interrupt\n"},
		{"check/load", []string{"check", bigSpec}, "big.wrap: incomplete: interrupted"},
		{"vet/load", []string{"vet", bigSpec}, "vet: stopped before the end: interrupted"},
	}
	for _, tt := range tests {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(tt.name+"/"+sig.String(), func(t *testing.T) {
				r := runHostile(t, bin, sig, tt.args...)
				t.Logf("exit %d in %v, lag %v", r.code, r.took.Round(time.Millisecond), r.lag.Round(time.Millisecond))
				if r.code != exitIncomplete || !strings.Contains(r.out, tt.want) {
					t.Errorf("exit %d, want 3 and %q:\n%.2000s", r.code, tt.want, r.out)
				}
				if r.over(2 * time.Second) {
					t.Errorf("took %v: more than a second and the machine's lag (%v) after the signal", r.took, r.lag)
				}
			})
		}
	}
}

// TestHostileFIFO gives a named pipe as the spec to every command that
// reads one: with no writer it is refused at once (exit 2), and with a
// writer that sends nothing the command ends at --timeout (exit 3).
// Before the fix, opening the pipe blocked every command forever.
func TestHostileFIFO(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, dir := buildBinary(t)
	fifo := filepath.Join(dir, "spec.wrap")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	other := writeSpec(t, dir, "other.wrap", "spec P\nvar x: 0..1\naction a { x := 1 - x }\n")
	run := writeSpec(t, dir, "run.jsonl", `{"action": "a"}`+"\n")
	commands := []struct {
		name string
		args []string
	}{
		{"check", []string{"check", "--timeout", "2s", fifo}},
		{"simulate", []string{"simulate", "--timeout", "2s", fifo}},
		{"vet", []string{"vet", "--timeout", "2s", fifo}},
		{"graph", []string{"graph", "--timeout", "2s", fifo}},
		{"replay", []string{"replay", "--timeout", "2s", fifo, run}},
		{"diff", []string{"diff", "--timeout", "2s", other, fifo}},
		{"explain", []string{"explain", "--timeout", "2s", fifo}},
		{"fmt", []string{"fmt", fifo}},
	}
	const refused = "spec.wrap: a named pipe (FIFO) that no process writes to: nothing to read"
	for _, c := range commands {
		t.Run(c.name+"/no-writer", func(t *testing.T) {
			r := runHostile(t, bin, 0, c.args...)
			if r.code != exitUsage || !strings.Contains(r.out, refused) {
				t.Errorf("exit %d, want 2 and %q:\n%.2000s", r.code, refused, r.out)
			}
			if r.over(time.Second) {
				t.Errorf("took %v (the machine's lag %v)", r.took, r.lag)
			}
		})
	}
	// A writer that sends a line and then nothing, holding the pipe
	// open (O_RDWR does not wait for a reader).
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range commands {
		if c.name == "fmt" {
			continue // no limit to give it: a signal ends it (Go's default)
		}
		t.Run(c.name+"/silent-writer", func(t *testing.T) {
			if _, err := w.Write([]byte("spec P\n")); err != nil {
				t.Fatal(err)
			}
			r := runHostile(t, bin, 0, c.args...)
			if r.code != exitIncomplete {
				t.Errorf("exit %d, want 3:\n%.2000s", r.code, r.out)
			}
			if r.over(3 * time.Second) {
				t.Errorf("took %v, limit 2s + 1s + the machine's lag %v", r.took, r.lag)
			}
			t.Logf("exit %d in %v: %.300s", r.code, r.took.Round(time.Millisecond), r.out)
		})
	}
}
