//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/internal/native"
)

// TestCompileBuildStops runs the built binary's check --compile with a
// stand-in go whose build never ends (it starts a child, and records both
// pids): --timeout, SIGTERM and SIGINT sent to wrapcheck alone each end
// the run within a second, with exit 3 and the reason, and leave no
// process of the build behind (issue 34: SIGTERM left go build running
// and exited 143, and --timeout did not bound the build).
func TestCompileBuildStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, dir := buildBinary(t)
	spec := writeSpec(t, dir, "s.wrap", "spec S\nvar x: 0..3\naction a when x < 3 { x := x + 1 }\n")
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		args   []string
		sig    os.Signal // sent once the build runs; nil: the timeout ends it
		reason string
	}{
		{"timeout", []string{"--timeout", "1s"}, nil, "timeout (--timeout 1s)"},
		{"SIGTERM", nil, syscall.SIGTERM, "interrupted"},
		{"SIGINT", nil, syscall.SIGINT, "interrupted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pids := filepath.Join(t.TempDir(), "pids")
			script := "#!/bin/sh\necho $$ >> " + pids + "\nsleep 600 &\necho $! >> " + pids + "\nwait\n"
			if err := os.WriteFile(filepath.Join(tools, "go"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			c := exec.Command(bin, append(append([]string{"check", "--compile"}, tt.args...), spec)...)
			c.Env = append(os.Environ(), "PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"), native.DirEnv+"="+t.TempDir())
			var errb bytes.Buffer
			c.Stdout, c.Stderr = &errb, &errb
			c.WaitDelay = 5 * time.Second // a build left running keeps the pipes open
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			begin := time.Now()
			running := func() []int {
				b, _ := os.ReadFile(pids)
				var ps []int
				for _, f := range strings.Fields(string(b)) {
					if p, err := strconv.Atoi(f); err == nil {
						ps = append(ps, p)
					}
				}
				return ps
			}
			for len(running()) < 2 {
				if time.Since(begin) > 60*time.Second {
					c.Process.Kill()
					t.Fatalf("the build did not start: %s", errb.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			// From now (the build runs): --timeout 1s, which began before,
			// or the signal sent now; and 1 s. (Not from the start of the
			// process, which a loaded machine can delay by seconds.)
			limit := time.Second + time.Second
			begin = time.Now()
			if tt.sig != nil {
				if err := c.Process.Signal(tt.sig); err != nil {
					t.Fatal(err)
				}
			}
			stuck := time.AfterFunc(limit+10*time.Second, func() {
				c.Process.Kill()
				for _, p := range running() {
					syscall.Kill(p, syscall.SIGKILL)
				}
			})
			c.Wait()
			took := time.Since(begin)
			stuck.Stop()
			if code := c.ProcessState.ExitCode(); code != exitIncomplete || !strings.Contains(errb.String(), "stopped before the end, while loading and building: "+tt.reason) {
				t.Errorf("exit %d, output %q; want exit 3, %s", code, errb.String(), tt.reason)
			}
			if took > limit {
				t.Errorf("ended %v after the %s, want within %v", took.Round(time.Millisecond), tt.name, limit)
			}
			for _, p := range running() {
				if alive(p) {
					syscall.Kill(p, syscall.SIGKILL)
					t.Errorf("process %d of the build still runs", p)
				}
			}
		})
	}
}

// alive reports whether the process pid runs (a zombie does not).
func alive(pid int) bool {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// pid (comm) state ...: comm may hold spaces and parentheses.
		_, rest, _ := strings.Cut(string(b), ") ")
		return !strings.HasPrefix(rest, "Z")
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		return false // a /proc without the process: gone
	}
	return syscall.Kill(pid, 0) == nil
}

// TestCompileLoadStops checks that check --compile --timeout ends on time
// while it loads its specs, with exit 3: a FIFO for a spec blocks the
// loading while its writer sends nothing (issue 34 item 1, through
// --compile).
func TestCompileLoadStops(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.wrap")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	// A writer that sends nothing: the loading waits for the spec's text
	// (a FIFO with no writer at all is refused at once, TestHostileFIFO).
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "go"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv(native.DirEnv, filepath.Join(dir, "cache"))
	begin := time.Now()
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "--timeout", "1s", fifo}, &out, &errb)
	took := time.Since(begin)
	if code != exitIncomplete || !strings.Contains(errb.String(), "while loading and building: timeout (--timeout 1s)") {
		t.Errorf("exit %d, stderr %q; want exit 3, the timeout", code, errb.String())
	}
	if took > 2*time.Second {
		t.Errorf("ended after %v, want within 2s", took.Round(time.Millisecond))
	}
}
