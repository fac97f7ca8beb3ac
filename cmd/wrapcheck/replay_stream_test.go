package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// buildBinary builds wrapcheck into a temporary directory.
func buildBinary(t *testing.T) (bin, dir string) {
	t.Helper()
	dir = t.TempDir()
	bin = filepath.Join(dir, "wrapcheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin, dir
}

// TestReplayStreamMemory pipes generated streams, never stored on disk,
// into the built binary's `replay SPEC -` and reads its peak RSS: a run of
// two million steps (the old per-step trace kept ~230 bytes a step: 460
// MB), a 1 GiB stream of padded lines, and a 256 MiB OTLP stream of 4096
// traces of one conversation, each judged when its root span arrives, all
// under 400 MB; an endless stream whose third line diverges ends there.
func TestReplayStreamMemory(t *testing.T) {
	if testenv.Short(t) {
		t.Skip("builds the binary and pipes a GiB")
	}
	bin, dir := buildBinary(t)
	write := func(name, src string) string { return writeSpec(t, dir, name, src) }
	flip := write("flip.wrap", "spec Flip\nvar x: 0..1\nvar n: 0..2\naction a { x := 1 - x }\naction b when n < 2 { n := n + 1 }\ninvariant I: x <= 1\n")
	mapping := write("map.json", `{"rules": [{"span": "a", "action": "a"}]}`)
	pad := strings.Repeat(" ", 64<<10)
	padded := `{"action": "a"}` + pad + "\n"
	paddedLines := (1<<30 + len(padded) - 1) / len(padded)
	tests := []struct {
		name  string
		args  []string
		gen   func(w io.Writer) error
		code  int
		out   string
		maxMB int64
	}{
		{"jsonl 2M steps", []string{"replay", flip, "-"}, func(w io.Writer) error {
			for i := 0; i < 2000000; i++ {
				if _, err := io.WriteString(w, `{"action": "a"}`+"\n"); err != nil {
					return err
				}
			}
			return nil
		}, exitHolds, "Flip: <stdin> conforms: 2000000 steps replayed\n", 400},
		{"jsonl 1GiB", []string{"replay", flip, "-"}, func(w io.Writer) error {
			for i := 0; i < paddedLines; i++ {
				if _, err := io.WriteString(w, padded); err != nil {
					return err
				}
			}
			return nil
		}, exitHolds, fmt.Sprintf("Flip: <stdin> conforms: %d steps replayed\n", paddedLines), 400},
		{"jsonl endless", []string{"replay", flip, "-"}, func(w io.Writer) error {
			for i := 0; ; i++ {
				if _, err := io.WriteString(w, `{"action": "b"}`+"\n"); err != nil {
					return err
				}
			}
		}, exitViolated, "<stdin>:3: Flip: the spec does not allow b here\n\tallowed here: a\n\t2 steps of the run conform before this line\n", 400},
		{"otlp 256MiB", []string{"replay", "--mapping", mapping, flip, "-"}, func(w io.Writer) error {
			for i := 0; i < 4096; i++ {
				start := 1000 + 10*i
				_, err := fmt.Fprintf(w, `{"resourceSpans":[{"scopeSpans":[{"spans":[`+
					`{"traceId":"%032x","spanId":"%016x","parentSpanId":"%016x","name":"a","startTimeUnixNano":"%d"},`+
					`{"traceId":"%032x","spanId":"%016x","name":"turn","startTimeUnixNano":"%d","attributes":[{"key":"gen_ai.conversation.id","value":{"stringValue":"c"}},{"key":"pad","value":{"stringValue":"%s"}}]}]}]}]}`+"\n",
					i+1, 2*i+2, 2*i+1, start+1, i+1, 2*i+1, start, pad)
				if err != nil {
					return err
				}
			}
			return nil
		}, exitHolds, "Flip: <stdin>[c] conforms: 4096 steps replayed\n", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			genDone := make(chan error, 1)
			go func() {
				bw := bufio.NewWriterSize(in, 1<<20)
				err := tt.gen(bw)
				if err == nil {
					err = bw.Flush()
				}
				in.Close()
				genDone <- err
			}()
			timer := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
			peak := peakRSS(cmd)
			werr := cmd.Wait()
			timer.Stop()
			gerr := <-genDone
			code := cmd.ProcessState.ExitCode()
			if werr != nil && code < 0 {
				t.Fatalf("killed: %v; stderr: %.300s", werr, stderr.String())
			}
			if code != tt.code || stdout.String() != tt.out {
				t.Errorf("exit %d, stdout %q, stderr %.300q; want exit %d, stdout %q", code, stdout.String(), stderr.String(), tt.code, tt.out)
			}
			if tt.code == exitHolds && gerr != nil {
				t.Errorf("the generator failed: %v", gerr)
			}
			rss := peak()
			if rss > tt.maxMB<<20 {
				t.Errorf("peak RSS %d MB, want under %d MB", rss>>20, tt.maxMB)
			}
			t.Logf("exit %d in %v, peak RSS %d MB", code, time.Since(start).Round(time.Millisecond), rss>>20)
		})
	}
}
