package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// simSpecs are the specs of the simulate tests.
var simSpecs = map[string]string{
	"toctou.wrap": `spec TOCTOU
var content: 0..2
var approved: 0..2
var granted: bool
var shipped: 0..2
action approve when not granted { approved := content; granted := true }
action edit when content < 2 { content := content + 1 }
action ship when granted { shipped := content }
invariant Shipped: shipped == approved or shipped == 0
`,
	"holds.wrap": `spec Holds
var x: 0..3
action inc when x < 3 { x := x + 1 }
action reset when x == 3 { x := 0 }
invariant Small: x <= 3
property Back: always eventually x == 0
`,
	"stuck.wrap": `spec Stuck
var x: 0..3
action inc when x < 2 { x := x + 1 }
`,
	"crash.wrap": `spec Crash
var x: 0..3
action inc { x := x + 1 }
`,
}

func simDir(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range simSpecs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
}

// timing matches the figures of a run that depend on the machine.
var timing = regexp.MustCompile(`\d+\.\d{3} s, \d+ workers?|"seconds": [0-9.]+, "workers": \d+`)

// TestSimulateOutcomes: the exit code and the key lines of each outcome;
// the output does not depend on --workers.
func TestSimulateOutcomes(t *testing.T) {
	simDir(t)
	tests := []struct {
		name string
		args []string
		code int
		want []string // regexps stdout must match
		err  string   // regexp stderr must match ("": empty)
	}{
		{"violation", []string{"toctou.wrap"}, 1, []string{`^TOCTOU: invariant Shipped is violated`, `(?m)^the shortest violation in 10000 walks of at most 100 steps \(seed 1\): walk \d+$`, `(?m)^simulation is not exhaustive`}, ""},
		{"none", []string{"--walks", "50", "holds.wrap"}, 3, []string{`^Holds: no violation found in 50 walks of at most 100 steps \(seed 1\)\n`, `(?m)^simulation is not exhaustive: the states no walk reached are unchecked$`, `(?m)^note: simulate does not check properties; not checked: property Back$`, `(?m)^50 walks, 5000 steps, longest walk 100, `}, ""},
		{"runtime error", []string{"--seed", "9", "crash.wrap"}, 1, []string{`^Crash: runtime error in action inc: value 4 out of range 0..3 of x`, `(?m)^trace, 4 steps:$`}, ""},
		{"json none", []string{"--depth", "5", "--walks", "3", "--format", "json", "holds.wrap"}, 3, []string{`"exhaustive": false`, `"verdict": "incomplete"`, `"violation": null`, `"walk": null`, `"depth": 5`, `"unchecked_properties": \["Back"\]`, `"stats": \{"walks": 3, "steps": 15, "depth": 5, "ends": 0, `}, ""},
		{"deadlock", []string{"stuck.wrap"}, 1, []string{`^Stuck: deadlock: no action is enabled and the state is not terminal\n`, `(?m)^trace, 2 steps:$`, `: walk 0\n`}, ""},
		{"no deadlock", []string{"--no-deadlock", "--walks", "10", "stuck.wrap"}, 3, []string{`(?m)^10 walks, 20 steps, longest walk 2, `}, ""},
		{"json", []string{"--format", "json", "--shard", "1/4", "toctou.wrap"}, 1, []string{`"mode": "simulate"`, `"exhaustive": false`, `"verdict": "violated"`, `"shard": \{"index": 1, "count": 4\}`}, ""},
		{"bad shard", []string{"--shard", "4/4", "toctou.wrap"}, 2, nil, `^--shard "4/4": want I/N with 0 <= I < N, e\.g\. 0/4\n$`},
		{"bad depth", []string{"--depth", "0", "toctou.wrap"}, 2, nil, `--depth must be at least 1`},
		{"bad format", []string{"--format", "sarif", "toctou.wrap"}, 2, nil, `^--format sarif: want text, json or itf\n$`},
		{"bad spec", []string{"missing.wrap"}, 2, nil, `missing.wrap`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var outs []string
			for _, workers := range []string{"1", "4"} {
				var stdout, stderr bytes.Buffer
				code := run(append([]string{"simulate", "--workers", workers}, tt.args...), &stdout, &stderr)
				if code != tt.code {
					t.Fatalf("workers %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", workers, code, tt.code, stdout.String(), stderr.String())
				}
				for _, w := range tt.want {
					if !regexp.MustCompile(w).MatchString(stdout.String()) {
						t.Errorf("workers %s: stdout does not match %s:\n%s", workers, w, stdout.String())
					}
				}
				if tt.err == "" && stderr.Len() > 0 || tt.err != "" && !regexp.MustCompile(tt.err).MatchString(stderr.String()) {
					t.Errorf("workers %s: stderr %q, want %s", workers, stderr.String(), tt.err)
				}
				if isJSON := contains(tt.args, "json"); tt.code != 2 && json.Valid(stdout.Bytes()) != isJSON {
					t.Errorf("workers %s: stdout is JSON: %t, want %t", workers, !isJSON, isJSON)
				}
				outs = append(outs, timing.ReplaceAllString(stdout.String(), "T"))
			}
			if diff := cmp.Diff(outs[0], outs[1]); diff != "" {
				t.Errorf("--workers 1 and 4 differ (-1 +4):\n%s", diff)
			}
		})
	}
}

// TestSimulateShards: the shards of a run report walks of their own
// residue, and their figures add up to the unsharded run's.
func TestSimulateShards(t *testing.T) {
	simDir(t)
	type out struct {
		Walk  *int64
		Stats struct{ Walks, Steps, Ends int64 }
	}
	sim := func(args ...string) out {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"simulate", "--format", "json", "--walks", "400"}, args...), &stdout, &stderr)
		var o out
		if err := json.Unmarshal(stdout.Bytes(), &o); err != nil || code != 1 && code != 3 {
			t.Fatalf("%v: exit %d, %v\n%s%s", args, code, err, stdout.String(), stderr.String())
		}
		return o
	}
	for _, spec := range []string{"toctou.wrap", "holds.wrap"} {
		whole := sim(spec)
		var sum out
		for i := range 4 {
			o := sim("--shard", fmt.Sprintf("%d/4", i), spec)
			if o.Walk != nil && *o.Walk%4 != int64(i) {
				t.Errorf("%s: shard %d/4 reports walk %d", spec, i, *o.Walk)
			}
			sum.Stats.Walks += o.Stats.Walks
			sum.Stats.Steps += o.Stats.Steps
			sum.Stats.Ends += o.Stats.Ends
		}
		if diff := cmp.Diff(whole.Stats, sum.Stats); diff != "" {
			t.Errorf("%s: (-whole +shards):\n%s", spec, diff)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestSimulateTimeoutAlone: with --timeout and no --walks, the run ends
// at the first violation (or the timeout), and says which.
func TestSimulateTimeoutAlone(t *testing.T) {
	simDir(t)
	tests := []struct {
		spec string
		code int
		want []string
	}{
		{"toctou.wrap", 1, []string{`"verdict": "violated"`, `"reason": "violation found"`, `"walks": null`}},
		{"holds.wrap", 3, []string{`"verdict": "incomplete"`, `"reason": "timeout"`, `"walks": null`}},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run([]string{"simulate", "--timeout", "300ms", "--format", "json", tt.spec}, &stdout, &stderr)
		if code != tt.code {
			t.Fatalf("%s: exit %d, want %d\n%s%s", tt.spec, code, tt.code, stdout.String(), stderr.String())
		}
		for _, w := range tt.want {
			if !regexp.MustCompile(w).MatchString(stdout.String()) {
				t.Errorf("%s: stdout does not match %s:\n%s", tt.spec, w, stdout.String())
			}
		}
	}
}
