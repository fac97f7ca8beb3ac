package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// spinRow is the source column of a COUNTS.tsv row measured with SPIN:
// the figures pan printed and the model with its -D options.
var spinRow = regexp.MustCompile(`^SPIN \S+ (\d+) stored, (\d+) transitions \((bench/peers/models/\S+\.pml)((?: -D\S+)*)\)$`)

// TestSpinCounts runs SPIN on every Promela model of a COUNTS.tsv row
// whose source names one (the channel models of bench/peers/models, as
// bench/peers.sh compiles them: spin -a, gcc -DSAFETY -DNOREDUCE, pan)
// and checks that pan stores the row's states and makes one transition
// more than the row's (pan counts the initial state as reached by one),
// the figures TestPeerCounts checks wrapcheck against. Without spin or
// gcc it is skipped, under CI=true it fails.
func TestSpinCounts(t *testing.T) {
	spin := testenv.Tool(t, "spin", "apt-get install spin")
	gcc := testenv.Tool(t, "gcc", "apt-get install gcc")
	n := 0
	for _, r := range readTSV(t, "../testdata/COUNTS.tsv", 7) {
		f := r.fields
		m := spinRow.FindStringSubmatch(f[6])
		if m == nil {
			continue
		}
		n++
		t.Run(f[0]+" "+f[1], func(t *testing.T) {
			if m[1] != f[2] {
				t.Fatalf("COUNTS.tsv:%d: SPIN stored %s, the row's states %s", r.line, m[1], f[2])
			}
			if want, _ := strconv.Atoi(f[3]); m[2] != strconv.Itoa(want+1) {
				t.Fatalf("COUNTS.tsv:%d: SPIN transitions %s, not the row's %s + 1", r.line, m[2], f[3])
			}
			dir := t.TempDir()
			src, err := os.ReadFile(filepath.Join("..", m[3]))
			if err != nil {
				t.Fatal(err)
			}
			pml := filepath.Base(m[3])
			if err := os.WriteFile(filepath.Join(dir, pml), src, 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(name string, args ...string) string {
				cmd := exec.Command(name, args...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			run(spin, append(append([]string{"-a"}, strings.Fields(m[4])...), pml)...)
			run(gcc, "-w", "-O1", "-DSAFETY", "-DNOREDUCE", "-o", "pan", "pan.c")
			out := run(filepath.Join(dir, "pan"), "-m100000")
			if !strings.Contains(out, "errors: 0") {
				t.Fatalf("pan found errors:\n%s", out)
			}
			stored := regexp.MustCompile(`(\d+) states, stored`).FindStringSubmatch(out)
			trans := regexp.MustCompile(`(\d+) transitions \(= stored\+matched\)`).FindStringSubmatch(out)
			if stored == nil || trans == nil {
				t.Fatalf("no counts in pan's output:\n%s", out)
			}
			if stored[1] != m[1] || trans[1] != m[2] {
				t.Errorf("pan: %s states stored, %s transitions; COUNTS.tsv:%d records %s, %s", stored[1], trans[1], r.line, m[1], m[2])
			}
		})
	}
	if n < 5 {
		t.Errorf("%d COUNTS.tsv rows measured with SPIN name a model; want at least 5", n)
	}
}
