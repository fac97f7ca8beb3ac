package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// The distributed search's tests run the wrapcheck that testscript.Main
// put on PATH (this test binary under that name), so that check
// --workers-local can start its workers as processes.

// untimed blanks the fields of a JSON report that depend on timing or on
// the number of workers.
func untimed(b []byte) string {
	s := regexp.MustCompile(`"seconds": \d+\.\d+`).ReplaceAllString(string(b), `"seconds": 0`)
	return regexp.MustCompile(`"workers": \d+`).ReplaceAllString(s, `"workers": 0`)
}

// wrapcheck runs the wrapcheck on PATH in dir and returns its exit
// code, stdout and stderr.
func wrapcheck(t *testing.T, dir string, args ...string) (int, []byte, []byte) {
	t.Helper()
	c := exec.Command("wrapcheck", args...)
	c.Dir = dir
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.Bytes(), stderr.Bytes()
}

func storeURL(dir string) string {
	return "file://" + filepath.ToSlash(dir) + "?create_dir=1&metadata=skip"
}

// distCases are the specs the process-level tests run: every example
// (with the defines of the peers' counts) would take minutes of process
// starts; these cover symmetry, partial-order reduction, deadlocks,
// invariants, runtime errors, LTL properties and a spec that holds.
var distCases = []struct {
	path    string
	defines []string
}{
	{"examples/approval/toctou.wrap", nil},
	{"examples/approval/toctou_fixed_snapshot.wrap", nil},
	{"examples/classic/naive_mutex_deadlock.wrap", nil},
	{"examples/classic/philosophers.wrap", nil},
	{"examples/classic/peterson_fair.wrap", nil},
	{"examples/pipeline/release_after_outage.wrap", nil},
	{"examples/peers/mutex_sym.wrap", nil},
	{"examples/peers/pipeline.wrap", []string{"-D", "K=2", "-D", "N=2"}},
}

// TestDistMatchesCheck: check --store with 1, 2 and 4 local workers on
// file:// prints check's JSON report, byte for byte but the timing and
// worker fields.
func TestDistMatchesCheck(t *testing.T) {
	root, _ := filepath.Abs("../..")
	for _, tc := range distCases {
		args := append(append([]string{"check", "--format", "json", "--progress", "off"}, tc.defines...), tc.path)
		wantCode, want, wantErr := wrapcheck(t, root, append(args[:1:1], append([]string{"--workers", "1"}, args[1:]...)...)...)
		if wantCode == exitUsage {
			t.Fatalf("check %s: %s", tc.path, wantErr)
		}
		for _, n := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/N%d", tc.path, n), func(t *testing.T) {
				st := storeURL(t.TempDir())
				a := append([]string{args[0], "--store", st, "--workers-local", fmt.Sprint(n)}, args[1:]...)
				code, got, stderr := wrapcheck(t, root, a...)
				if code != wantCode {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
				}
				if diff := cmp.Diff(untimed(want), untimed(got)); diff != "" {
					t.Errorf("check --store vs check (-want +got):\n%s", diff)
				}
				// The run is a checkpoint: a second check reads the result back.
				code, again, _ := wrapcheck(t, root, a...)
				if diff := cmp.Diff(untimed(want), untimed(again)); code != wantCode || diff != "" {
					t.Errorf("second run: exit %d (-want +got):\n%s", code, diff)
				}
			})
		}
	}
}

// TestDistPartition: check --store --partition with 1 to 3 local
// worker processes (which must be given the partition, or they refuse
// the store) prints check's JSON report, on a spec that holds and on one
// with a violation and its trace, with partitions by one run's state, by
// an element of each run's array, and by a variable of the state whose
// values spread over every level.
func TestDistPartition(t *testing.T) {
	root, _ := filepath.Abs("../..")
	for _, tc := range []struct {
		path, part string
		defines    []string
	}{
		{"examples/peers/pipeline.wrap", "run[Run1]", []string{"-D", "K=2", "-D", "N=2", "--no-symmetry"}},
		{"examples/peers/pipeline.wrap", "run[Run1].rel[0],run[Run2].rel[0]", []string{"-D", "K=2", "-D", "N=2", "-D", "BUG=1"}},
		{"examples/approval/toctou.wrap", "shipped", nil},
	} {
		args := append(append([]string{"check", "--format", "json", "--progress", "off"}, tc.defines...), tc.path)
		wantCode, want, wantErr := wrapcheck(t, root, append(args[:1:1], append([]string{"--workers", "1"}, args[1:]...)...)...)
		if wantCode == exitUsage {
			t.Fatalf("check %s: %s", tc.path, wantErr)
		}
		for _, n := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("%s/%s/N%d", tc.path, tc.part, n), func(t *testing.T) {
				a := append([]string{args[0], "--store", storeURL(t.TempDir()), "--workers-local", fmt.Sprint(n), "--partition", tc.part}, args[1:]...)
				code, got, stderr := wrapcheck(t, root, a...)
				if code != wantCode {
					t.Fatalf("exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
				}
				if diff := cmp.Diff(untimed(want), untimed(got)); diff != "" {
					t.Errorf("check --store --partition vs check (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// killSpec is a spec with enough levels that a worker is killed in the
// middle of the search.
var killSpec = struct {
	path    string
	defines []string
}{"examples/peers/pipeline.wrap", []string{"-D", "K=2", "-D", "N=3"}}

// TestDistKill: a worker killed with SIGKILL in the middle of a level and
// started again with the same index resumes, and worker 0 reports check's
// result.
func TestDistKill(t *testing.T) {
	if testenv.Short(t) {
		t.Skip("short")
	}
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	st := storeURL(dir)
	base := append(append([]string{"--format", "json", "--progress", "off"}, killSpec.defines...), killSpec.path)
	_, want, _ := wrapcheck(t, root, append([]string{"check", "--workers", "1"}, base...)...)
	start := func(i int) (*exec.Cmd, *bytes.Buffer) {
		c := exec.Command("wrapcheck", append([]string{"worker", "--store", st, "--index", fmt.Sprint(i), "--workers", "2"}, base...)...)
		c.Dir = root
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c, &out
	}
	w0, out0 := start(0)
	w1, _ := start(1)
	// Kill worker 1 once level 4 is committed, while it expands level 5.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "s0", "L000004", "summary-1.wc")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("level 4 never committed")
		}
		time.Sleep(time.Millisecond)
	}
	if err := w1.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w1.Wait()
	w1, out1 := start(1)
	if err := w1.Wait(); err != nil && w1.ProcessState.ExitCode() != exitViolated && w1.ProcessState.ExitCode() != exitHolds {
		t.Fatalf("restarted worker 1: %v\n%s", err, out1)
	}
	if err := w0.Wait(); err != nil && w0.ProcessState.ExitCode() != exitViolated && w0.ProcessState.ExitCode() != exitHolds {
		t.Fatalf("worker 0: %v\n%s", err, out0)
	}
	if diff := cmp.Diff(untimed(want), untimed(out0.Bytes())); diff != "" {
		t.Errorf("worker 0 after a killed worker 1 vs check (-want +got):\n%s", diff)
	}
	leases, _ := os.ReadDir(filepath.Join(dir, "lease", "1"))
	if len(leases) != 2 {
		t.Errorf("worker 1 took %d leases, want 2", len(leases))
	}
}

// TestDistInterrupted: a check --store stopped by its timeout exits 3,
// and the next run resumes from the last committed level to check's
// result.
func TestDistInterrupted(t *testing.T) {
	root, _ := filepath.Abs("../..")
	dir := t.TempDir()
	st := storeURL(dir)
	base := append(append([]string{"--format", "json", "--progress", "off"}, killSpec.defines...), killSpec.path)
	_, want, _ := wrapcheck(t, root, append([]string{"check", "--workers", "1"}, base...)...)
	// A third of the whole search's time, as this machine takes it now:
	// a fixed 300 ms let the search end first on an idle machine (0.29 s),
	// and the first levels, a few states each, commit within milliseconds.
	var ref struct {
		Stats struct{ Seconds float64 }
	}
	if err := json.Unmarshal(want, &ref); err != nil || ref.Stats.Seconds <= 0 {
		t.Fatalf("check's JSON: %v\n%s", err, want)
	}
	timeout := max(30*time.Millisecond, time.Duration(ref.Stats.Seconds*float64(time.Second)/3))
	code, out, stderr := wrapcheck(t, root, append([]string{"check", "--store", st, "--timeout", timeout.String()}, base...)...)
	if code != exitIncomplete || !strings.Contains(string(out), `"timeout"`) {
		t.Fatalf("with --timeout: exit %d\n%s%s", code, out, stderr)
	}
	levels, _ := os.ReadDir(filepath.Join(dir, "s0"))
	if len(levels) == 0 {
		t.Fatal("no level committed before the timeout")
	}
	code, got, stderr := wrapcheck(t, root, append([]string{"check", "--store", st}, base...)...)
	if code == exitUsage {
		t.Fatalf("resumed: %s", stderr)
	}
	if diff := cmp.Diff(untimed(want), untimed(got)); diff != "" {
		t.Errorf("resumed vs check (-want +got):\n%s", diff)
	}
}

// TestDistBadStore: a store with a corrupt, truncated or foreign file, or
// another run's manifest, gives a clear error and exit 2, never a verdict.
func TestDistBadStore(t *testing.T) {
	root, _ := filepath.Abs("../..")
	spec := "examples/approval/toctou.wrap"
	tests := []struct {
		name   string
		damage func(t *testing.T, dir, other string)
		args   []string
		want   string // stderr
	}{
		{"corrupt", func(t *testing.T, dir, _ string) { flip(t, filepath.Join(dir, "s0", "L000001", "states-0.wc"), 9) }, nil,
			"store file s0/L000001/states-0.wc: checksum mismatch: the file is corrupt\n"},
		// Byte 55 of the header: bit 30 of the payload's length.
		{"corrupt-header", func(t *testing.T, dir, _ string) { flipAt(t, filepath.Join(dir, "s0", "L000001", "states-0.wc"), 55) }, nil,
			"store file s0/L000001/states-0.wc: a payload of 1073741845 bytes, more than 2 states records can take\n"},
		{"truncated", func(t *testing.T, dir, _ string) { truncate(t, filepath.Join(dir, "s0", "L000002", "summary-0.wc")) }, nil,
			"store file s0/L000002/summary-0.wc: truncated: 87 bytes, the header says 92\n"},
		{"foreign", func(t *testing.T, dir, other string) {
			copyFile(t, filepath.Join(other, "s0", "L000001", "states-0.wc"), filepath.Join(dir, "s0", "L000001", "states-0.wc"))
		}, nil, "store file s0/L000001/states-0.wc: written by another run (run <hash>, this run is <hash>)\n"},
		{"another-run", func(*testing.T, string, string) {}, []string{"--no-symmetry"},
			"store $STORE holds another run: another spec or other options (spec hash <hash>, not <hash>); use another prefix or empty this one\n"},
		{"another-partition", func(*testing.T, string, string) {}, []string{"--partition", "shipped,granted"},
			"store $STORE holds another run: partition by the whole state, not by granted,shipped; use another prefix or empty this one\n"},
		// a hostile run.json's partition: quoted, at most 120 bytes of it
		{"hostile-partition", func(t *testing.T, dir, _ string) {
			man := `{"format":3,"spec":"x","workers":1,"partition":"a\nstate: holds ` + strings.Repeat("A", 5000) + `"}` + "\n"
			if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(man), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "store $STORE holds another run: another spec or other options (spec hash x, not <hash>), partition by \"a\\nstate: holds " +
			strings.Repeat("A", 105) + "\"... (5015 bytes), not by the whole state; use another prefix or empty this one\n"},
	}
	hashes := regexp.MustCompile(`\b[0-9a-f]{12,16}\b`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, other := t.TempDir(), t.TempDir()
			run := func(d string, extra ...string) (int, []byte, []byte) {
				return wrapcheck(t, root, append(append([]string{"check", "--store", storeURL(d), "--format", "json"}, extra...), spec)...)
			}
			if code, _, stderr := run(dir); code != exitViolated {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if code, _, stderr := run(other, "--no-por"); code == exitUsage {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			tt.damage(t, dir, other)
			code, stdout, stderr := run(dir, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want 2; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			// the whole message, the store's URL written $STORE and the
			// hashes of runs and specs <hash>
			got := hashes.ReplaceAllString(strings.ReplaceAll(string(stderr), storeURL(dir), "$STORE"), "<hash>")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if regexp.MustCompile(`"verdict": "(holds|violated|incomplete)"`).Match(stdout) {
				t.Errorf("a verdict from a damaged store:\n%s", stdout)
			}
		})
	}
}

// flip flips a bit of the file at path: of its byte at end bytes from
// its end (the compressed payload's last at 9), or of its middle byte
// with -1 (in a small frame, its header's).
// flip flips a bit of the byte end bytes before the end of the file.
func flip(t *testing.T, path string, end int) {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	flipAt(t, path, int(fi.Size())-end)
}

// flipAt flips a bit of byte at of the file.
func flipAt(t *testing.T, path string, at int) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[at] ^= 0x40
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func truncate(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:len(b)-5], 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDeployRecipes: the recipes of deploy/ run `wrapcheck worker` with
// the flags it has, and their N agrees with the scheduler's count.
func TestDeployRecipes(t *testing.T) {
	worker := newWorkerCmd()
	tests := []struct {
		file  string
		count *regexp.Regexp // the scheduler's N
	}{
		{"../../deploy/kubernetes/wrapcheck-job.yaml", regexp.MustCompile(`(?m)^\s*completions: (\d+)`)},
		{"../../deploy/github-actions/distributed-check.yml", regexp.MustCompile(`index: \[((?:\d+, )*\d+)\]`)},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			b, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			src := string(b)
			for _, f := range regexp.MustCompile(`\s--([a-z][a-z-]*)`).FindAllStringSubmatch(src[strings.Index(src, "wrapcheck worker"):], -1) {
				if worker.Flags().Lookup(f[1]) == nil {
					t.Errorf("worker has no flag --%s", f[1])
				}
			}
			m := regexp.MustCompile(`--workers (\d+)`).FindStringSubmatch(src)
			c := tt.count.FindStringSubmatch(src)
			if m == nil || c == nil {
				t.Fatalf("no --workers N or no scheduler count")
			}
			n := c[1]
			if strings.Contains(n, ",") {
				n = fmt.Sprint(len(strings.Split(n, ",")))
			}
			if m[1] != n {
				t.Errorf("--workers %s but the scheduler starts %s", m[1], n)
			}
		})
	}
}

// TestDistLatency: a store URL's latency=D (a remote store simulated on
// a local one) changes no report, every store operation then takes at
// least D, and WRAPCHECK_STORE_LOG has each worker log its operations;
// a latency out of bounds exits 2 with the parameter named.
func TestDistLatency(t *testing.T) {
	root, _ := filepath.Abs("../..")
	spec := "examples/approval/toctou.wrap"
	_, want, _ := wrapcheck(t, root, "check", "--format", "json", "--workers", "1", spec)
	logs := t.TempDir()
	c := exec.Command("wrapcheck", "check", "--format", "json", "--progress", "off", "--workers-local", "2",
		"--store", storeURL(t.TempDir())+"&latency=2ms", spec)
	c.Dir = root
	c.Env = append(os.Environ(), storeLogEnv+"="+logs)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	got, err := c.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitViolated {
		t.Fatalf("exit %v, want %d; stderr:\n%s", err, exitViolated, stderr.Bytes())
	}
	if diff := cmp.Diff(untimed(want), untimed(got)); diff != "" {
		t.Errorf("check --store with latency vs check (-want +got):\n%s", diff)
	}
	for i := range 2 {
		b, err := os.ReadFile(filepath.Join(logs, fmt.Sprintf("ops-%d.tsv", i)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) < 10 {
			t.Fatalf("worker %d logged %d lines:\n%s", i, len(lines), b)
		}
		for _, line := range lines[1:] {
			f := strings.Split(line, "\t")
			var start, end int64
			if len(f) == 9 {
				fmt.Sscan(f[2], &start)
				fmt.Sscan(f[3], &end)
			}
			if end-start < int64(2*time.Millisecond) {
				t.Errorf("worker %d: an operation of less than 2ms: %q", i, line)
			}
		}
		if !strings.Contains(string(b), fmt.Sprintf("create\ts0/L000001/summary-%d.wc\t", i)) {
			t.Errorf("worker %d's log has no create of its summary of level 1:\n%s", i, b)
		}
	}
	for _, bad := range []string{"1h", "-5ms", "x"} {
		code, _, stderr := wrapcheck(t, root, "check", "--store", "mem://?latency="+bad, spec)
		if code != exitUsage || !strings.Contains(string(stderr), `latency="`+bad+`": want a duration from 0 to 10s`) {
			t.Errorf("latency=%s: exit %d, stderr %q; want 2 and the bound", bad, code, stderr)
		}
	}
}
