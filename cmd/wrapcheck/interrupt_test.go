package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// TestLimitsAndSignals runs ltl, graph, vet and replay on inputs that
// keep them busy for minutes (an automaton of 2^14 states, an init block
// of 10^9 states, a 15 MB spec of 400,000 actions, an invariant of 10^10
// evaluations, a replay waiting on standard input): each stops with exit
// 3 and the reason on stderr within a few seconds of --timeout 1s, of
// SIGTERM and of SIGINT.
func TestLimitsAndSignals(t *testing.T) {
	if testenv.Short(t) {
		t.Skip("builds the binary")
	}
	bin, dir := buildBinary(t)
	write := func(name, src string) string { return writeSpec(t, dir, name, src) }
	var conj []string
	for i := 0; i < 14; i++ {
		conj = append(conj, fmt.Sprintf("(eventually p%d)", i))
	}
	var big strings.Builder
	big.WriteString("spec Big\nvar x: bool\n")
	for i := 0; big.Len() < 15<<20; i++ {
		fmt.Fprintf(&big, "action a%d when not x { x := not x }\n", i)
	}
	choose := write("choose.wrap", "spec C\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n")
	bigSpec := write("big.wrap", big.String())
	quant := write("quant.wrap", "spec Q\nvar x: 0..3\naction a { x := (x + 1) % 4 }\ninvariant I: forall i in 0..99999: forall j in 0..99999: i + j >= x\n")
	run := write("run.jsonl", `{"action": "a"}`+"\n")
	flip := write("flip.wrap", "spec Flip\nvar x: 0..1\naction a { x := 1 - x }\n")
	commands := []struct {
		name  string
		args  []string
		stdin bool // keep standard input open, writing nothing
	}{
		{"ltl", []string{"ltl", strings.Join(conj, " and ")}, false},
		{"graph", []string{"graph", "--no-check", choose}, false},
		{"vet", []string{"vet", bigSpec}, false},
		{"replay", []string{"replay", quant, run}, false},
		{"replay-stdin", []string{"replay", flip, "-"}, true},
	}
	for _, c := range commands {
		for _, how := range []string{"timeout", "SIGTERM", "SIGINT"} {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				args := c.args
				if how == "timeout" {
					args = append([]string{args[0], "--timeout", "1s"}, args[1:]...)
				}
				cmd := exec.Command(bin, args...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if c.stdin {
					in, err := cmd.StdinPipe()
					if err != nil {
						t.Fatal(err)
					}
					defer in.Close()
				}
				start := time.Now()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if how != "timeout" {
					time.Sleep(time.Second)
					sig := syscall.SIGTERM
					if how == "SIGINT" {
						sig = syscall.SIGINT
					}
					if err := cmd.Process.Signal(sig); err != nil {
						t.Fatal(err)
					}
				}
				timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
				cmd.Wait()
				timer.Stop()
				took := time.Since(start)
				code := cmd.ProcessState.ExitCode()
				want := c.args[0] + ": stopped before the end: interrupted\n"
				if how == "timeout" {
					want = c.args[0] + ": stopped before the end: timeout (--timeout 1s)\n"
				}
				if code != exitIncomplete || stderr.String() != want {
					t.Errorf("exit %d, stderr %.300q; want exit 3, %q", code, stderr.String(), want)
				}
				if took > 5*time.Second {
					t.Errorf("took %v, want under 5s", took)
				}
				t.Logf("exit %d in %v", code, took.Round(time.Millisecond))
			})
		}
	}
}
