package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// The distributed search's store against hostile input (issue 34 items
// 8 to 10): the reproducers of testdata/hostile/store run as they are,
// the S3 endpoints as python3 processes on a free port of 127.0.0.1.

// storeRun is a wrapcheck process's outcome: its exit code, output, the
// time it ran and its peak resident memory.
type storeRun struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
	maxRSS         int64 // bytes
}

// runStore runs the wrapcheck on PATH in the repository's root with env
// added; a process still running after limit is killed, and the test
// fails.
func runStore(t *testing.T, env []string, limit time.Duration, args ...string) storeRun {
	t.Helper()
	return runStoreSignal(t, env, limit, 0, args...)
}

// runStoreSignal is runStore that sends SIGINT after sigint (0: never).
func runStoreSignal(t *testing.T, env []string, limit, sigint time.Duration, args ...string) storeRun {
	t.Helper()
	root, _ := filepath.Abs("../..")
	c := exec.Command("wrapcheck", args...)
	c.Dir = root
	c.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	start := time.Now()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { c.Process.Kill() })
	rss := peakRSS(c)
	if sigint > 0 {
		sig := time.AfterFunc(sigint, func() { c.Process.Signal(os.Interrupt) })
		defer sig.Stop()
	}
	err := c.Wait()
	timer.Stop()
	r := storeRun{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r.maxRSS = rss()
	if r.code == -1 {
		t.Fatalf("wrapcheck %s still ran after %v: killed\nstderr:\n%s", strings.Join(args, " "), limit, r.stderr)
	}
	return r
}

// storeRSS bounds the peak memory of a run on a hostile store: a small
// spec's run takes some 30 MiB, a store that makes it allocate what it
// claims gigabytes.
const storeRSS = 150 << 20

// check asserts a run's exit code, that stderr holds want, that it ended
// within limit + 1 s and stayed under storeRSS.
func (r storeRun) check(t *testing.T, code int, want string, limit time.Duration) {
	t.Helper()
	if r.code != code || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, want %d and %q on stderr\nstdout:\n%s\nstderr:\n%s", r.code, code, want, r.stdout, r.stderr)
	}
	if r.elapsed > limit+time.Second {
		t.Errorf("ran %v, want at most %v", r.elapsed, limit+time.Second)
	}
	if r.maxRSS > storeRSS {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", r.maxRSS>>20, storeRSS>>20)
	}
}

// storePython returns the path of python3, skipping the test without it
// (except under CI=true, where it fails).
func storePython(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "python3", "install Python 3")
}

// storeFreePort returns a port of 127.0.0.1 that nothing listens on.
func storeFreePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startEndpoint starts testdata/hostile/store/script on a free port with
// args, waits for it to listen and returns the s3:// URL of a bucket on
// it; it is killed when the test ends.
func startEndpoint(t *testing.T, script string, args ...string) string {
	t.Helper()
	port := storeFreePort(t)
	c := exec.Command(storePython(t), append([]string{filepath.Join("testdata", "hostile", "store", script), port}, args...)...)
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	addr := "127.0.0.1:" + port
	for deadline := time.Now().Add(30 * time.Second); ; {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not listen on %s", script, addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return hostileS3URL(addr)
}

func hostileS3URL(addr string) string {
	return "s3://b?endpoint=http://" + addr + "&region=us-east-1&use_path_style=true"
}

// hostileS3Env are the keys the S3 client signs with.
var hostileS3Env = []string{"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_CONFIG_FILE=" + os.DevNull, "AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull}

const storeSpec = "examples/classic/philosophers.wrap"

// TestHostileStoreS3: check and worker on hostile S3 endpoints end
// within their --timeout + 1 s, under 150 MiB, with a clear error (exit
// 2) or, when the deadline ends them, exit 3 and the reason: an endless
// object body (evils3.py inf), a listing that stays truncated (evils3b.py),
// a server that never answers; and the message of a server's error
// (evils3.py errinj) starts no line and carries no escape.
func TestHostileStoreS3(t *testing.T) {
	const timeout = 3 * time.Second
	to := "--timeout=" + timeout.String()
	t.Run("endless-body", func(t *testing.T) {
		u := startEndpoint(t, "evils3.py", "inf")
		runStore(t, hostileS3Env, 20*time.Second, "check", to, "--store", u, storeSpec).check(t, exitUsage, "object too large", timeout)
	})
	t.Run("endless-listing", func(t *testing.T) {
		u := startEndpoint(t, "evils3b.py")
		runStore(t, hostileS3Env, 20*time.Second, "worker", to, "--store", u, "--index", "0", "--workers", "1", storeSpec).check(t, exitUsage, "listing does not advance", timeout)
	})
	t.Run("silent", func(t *testing.T) {
		// Accepts connections and never answers.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go func() {
			var conns []net.Conn
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				conns = append(conns, c)
			}
		}()
		for _, cmd := range [][]string{{"check"}, {"worker", "--index", "0", "--workers", "1"}} {
			args := append(append(cmd, "--timeout=1s", "--store", hostileS3URL(l.Addr().String())), storeSpec)
			runStore(t, hostileS3Env, 20*time.Second, args...).check(t, exitIncomplete, "stopped before the end: timeout (--timeout 1s)", time.Second)
		}
		// SIGINT after 1 s, no --timeout.
		runStoreSignal(t, hostileS3Env, 20*time.Second, time.Second, "check", "--store", hostileS3URL(l.Addr().String()), storeSpec).
			check(t, exitIncomplete, "stopped before the end: interrupted", time.Second)
	})
	t.Run("error-injection", func(t *testing.T) {
		u := startEndpoint(t, "evils3.py", "errinj")
		r := runStore(t, append(hostileS3Env, "GITHUB_ACTIONS=true"), 20*time.Second, "check", to, "--store", u, storeSpec)
		r.check(t, exitUsage, `PWNED`, timeout)
		for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			if strings.ContainsAny(out, "\a\x1b") {
				t.Errorf("%s holds BEL or ESC: %q", name, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "::") && !strings.HasPrefix(l, "::error file=") {
					t.Errorf("%s: a line from the server starts with \"::\": %q", name, l)
				}
			}
		}
	})
}

// TestHostileStoreFile: a file:// store whose frame claims a payload of
// 512 MiB for its few states, and holds a zstd bomb of that size
// (frame.py), is refused at the header; a states file linked to
// /dev/zero is refused at once, not read until --timeout (which it
// ignored); a level directory linked outside the store is refused, and
// nothing is written there.
func TestHostileStoreFile(t *testing.T) {
	const timeout = 3 * time.Second
	to := "--timeout=" + timeout.String()
	// A finished run, whose files the second run reads to resume.
	finished := func(t *testing.T) string {
		dir := t.TempDir()
		if r := runStore(t, nil, time.Minute, "check", "--store", storeURL(dir), storeSpec); r.code != exitHolds && r.code != exitViolated {
			t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
		}
		return dir
	}
	t.Run("frame-bomb", func(t *testing.T) {
		dir := finished(t)
		payload := filepath.Join(t.TempDir(), "bomb.zst")
		f, err := os.Create(payload)
		if err != nil {
			t.Fatal(err)
		}
		zw, err := zstd.NewWriter(f)
		if err != nil {
			t.Fatal(err)
		}
		zeros := make([]byte, 1<<20)
		for range 512 {
			zw.Write(zeros)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		frame := filepath.Join(dir, "s0", "L000003", "states-0.wc")
		if out, err := exec.Command(storePython(t), filepath.Join("testdata", "hostile", "store", "frame.py"), frame, strconv.Itoa(512<<20), payload).CombinedOutput(); err != nil {
			t.Fatalf("frame.py: %v\n%s", err, out)
		}
		runStore(t, nil, 20*time.Second, "check", to, "--store", storeURL(dir), storeSpec).check(t, exitUsage,
			"store file s0/L000003/states-0.wc: a payload of 536870912 bytes, more than", timeout)
	})
	t.Run("dev-zero", func(t *testing.T) {
		dir := finished(t)
		frame := filepath.Join(dir, "s0", "L000002", "states-0.wc")
		if err := os.Remove(frame); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", frame); err != nil {
			t.Fatal(err)
		}
		runStore(t, nil, 20*time.Second, "check", to, "--store", storeURL(dir), storeSpec).check(t, exitUsage,
			"symbolic links, devices and FIFOs are refused", timeout)
	})
	t.Run("linked-level", func(t *testing.T) {
		dir, outside := t.TempDir(), t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "s0"), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "s0", "L000001")); err != nil {
			t.Fatal(err)
		}
		runStore(t, nil, 20*time.Second, "check", to, "--store", storeURL(dir), storeSpec).check(t, exitUsage,
			"symbolic links, devices and FIFOs are refused", timeout)
		if entries, _ := os.ReadDir(outside); len(entries) > 0 {
			t.Errorf("the run wrote %d files outside the store, through the link", len(entries))
		}
	})
}
