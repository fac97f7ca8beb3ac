package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/internal/native"
)

// holderEnv makes TestCacheHolder, run in a child process, hold the
// entry h/held of the cache at its value until its standard input ends.
const holderEnv = "WRAPCHECK_TEST_CACHE_HOLDER"

// TestCacheHolder is the child process of TestCacheOtherProcess.
func TestCacheHolder(t *testing.T) {
	root := os.Getenv(holderEnv)
	if root == "" {
		t.Skip("the child of TestCacheOtherProcess")
	}
	l, err := (&native.Cache{Root: root}).Acquire("h/held")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	l.Release()
}

// TestCacheOtherProcess checks, through the command, that an entry
// another process holds is listed as in use and kept by clean, and
// removed once that process ended.
func TestCacheOtherProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	t.Setenv(native.DirEnv, dir)
	root := filepath.Join(dir, "native")
	if err := os.MkdirAll(filepath.Join(root, "h", "held"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "h", "held", native.BinName), []byte("bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestCacheHolder$")
	child.Env = append(os.Environ(), holderEnv+"="+root)
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	cmd := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if code != 0 || stderr.Len() > 0 {
			t.Fatalf("%s: exit %d, %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	if got := cmd("cache", "list"); !strings.Contains(got, "in use      h/held\n") {
		t.Errorf("cache list with the child holding h/held:\n%s", got)
	}
	if d := cmp.Diff("removed 0 entries, 0 B; 1 in use kept\n", cmd("cache", "clean")); d != "" {
		t.Errorf("cache clean with the child holding h/held (-want +got):\n%s", d)
	}
	in.Close()
	if err := child.Wait(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff("removed h/held (3 B)\nremoved 1 entries, 3 B; 0 in use kept\n", cmd("cache", "clean")); d != "" {
		t.Errorf("cache clean after the child (-want +got):\n%s", d)
	}
}

// TestCacheCommand checks the output of cache list and cache clean, and
// their errors on a cache directory that is not one.
func TestCacheCommand(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.DateTime, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "native")
	for _, e := range []struct {
		rel  string
		size int64
		used time.Time
	}{
		{"h1/k1", 25 << 20, at("2026-11-02 10:00:00")},
		{"h1/k2", 3 << 10, at("2026-11-01 09:30:00")},
		{"h2/k3", -1, at("2026-11-03 12:00:00")},
	} {
		d := filepath.Join(root, filepath.FromSlash(e.rel))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if e.size >= 0 {
			if err := os.WriteFile(filepath.Join(d, native.BinName), nil, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(filepath.Join(d, native.BinName), e.size); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(d, e.used, e.used); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "h2", "junk"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	stray := "wrapcheck: cache: " + filepath.Join(root, "h2", "junk") + ": not a cache entry (a file where a directory should be), left as it is\n"
	tests := []struct {
		name   string
		dir    string
		args   []string
		code   int
		stdout string
		stderr string
	}{{
		name: "list",
		dir:  dir,
		args: []string{"cache", "list"},
		stdout: root + "\n" +
			"2026-11-01 09:30 UTC     3.0 KiB  ready       h1/k2\n" +
			"2026-11-02 10:00 UTC    25.0 MiB  ready       h1/k1\n" +
			"2026-11-03 12:00 UTC         0 B  incomplete  h2/k3\n" +
			"3 entries, 25.0 MiB (limits: 1.00 GiB, 30 days unused)\n",
		stderr: stray,
	}, {
		name:   "clean older than",
		dir:    dir,
		args:   []string{"cache", "clean", "--older-than", "1h"},
		stdout: "removed h1/k2 (3.0 KiB)\nremoved h1/k1 (25.0 MiB)\nremoved h2/k3 (0 B)\nremoved 3 entries, 25.0 MiB; 0 in use kept\n",
		stderr: stray,
	}, {
		name:   "list empty",
		dir:    dir,
		args:   []string{"cache", "list"},
		stdout: root + "\n0 entries, 0 B (limits: 1.00 GiB, 30 days unused)\n",
		stderr: stray,
	}, {
		name:   "clean empty",
		dir:    filepath.Join(dir, "none"),
		args:   []string{"cache", "clean"},
		stdout: "removed 0 entries, 0 B; 0 in use kept\n",
	}, {
		name:   "a file for the cache directory",
		dir:    filepath.Join(dir, "file"),
		args:   []string{"cache", "list"},
		code:   exitUsage,
		stderr: "cache: open " + filepath.Join(dir, "file", "native") + ": not a directory\n",
	}, {
		name:   "clean: a file for the cache directory",
		dir:    filepath.Join(dir, "file"),
		args:   []string{"cache", "clean"},
		code:   exitUsage,
		stderr: "cache: open " + filepath.Join(dir, "file", "native") + ": not a directory\n",
	}, {
		name:   "negative age",
		dir:    dir,
		args:   []string{"cache", "clean", "--older-than", "-1h"},
		code:   exitUsage,
		stderr: "--older-than -1h0m0s: want a duration of 0 or more\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(native.DirEnv, tt.dir)
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if d := cmp.Diff([3]any{tt.code, tt.stdout, tt.stderr}, [3]any{code, stdout.String(), stderr.String()}); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tt.args, d)
			}
		})
	}
}

// TestCompileBadCache checks that check --compile with a cache directory
// that cannot be one is a usage error naming it, before any build.
func TestCompileBadCache(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no Go toolchain on PATH")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(native.DirEnv, file)
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "../../examples/classic/diehard.wrap"}, &out, &errb)
	want := "--compile: the cache of compiled binaries (" + native.DirEnv + " moves it): mkdir " + file + ": not a directory\n"
	if d := cmp.Diff([3]any{exitUsage, "", want}, [3]any{code, out.String(), errb.String()}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestCompileCleanupFailure checks that a clean-up that fails changes
// nothing but a line on stderr: check --compile with its binary in the
// cache (here a script standing for it, which prints its arguments and
// exits 1, with its SHA-256 recorded as a build records it) and a cache
// whose eviction stamp cannot be written still runs the binary and passes
// its output and exit code through.
func TestCompileCleanupFailure(t *testing.T) {
	spec := "../../examples/classic/diehard.wrap"
	root := plantScript(t, spec, "#!/bin/sh\necho \"compiled: $*\"\nexit 1\n")
	stamp, old := filepath.Join(root, ".last-evict"), time.Now().Add(-2*native.EvictEvery)
	if err := os.Mkdir(stamp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(stamp, old, old); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "--workers", "1", spec}, &out, &errb)
	want := [3]any{exitViolated, "compiled: check --workers 1 " + spec + "\n", "wrapcheck: --compile: cache clean-up (the check goes on): open " + filepath.Join(root, ".last-evict") + ": is a directory\n"}
	if d := cmp.Diff(want, [3]any{code, out.String(), errb.String()}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// plantScript makes a fresh cache the cache directory and puts script in
// it as the binary of spec, recorded as a build records it; it returns
// the cache's root. It skips the test where there is no go on PATH
// (check --compile wants one) or no shell scripts.
func plantScript(t *testing.T, spec, script string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil || runtime.GOOS == "windows" {
		t.Skip("no Go toolchain on PATH, or no shell scripts")
	}
	dir := t.TempDir()
	t.Setenv(native.DirEnv, dir)
	rel, err := native.EntryName(nativeSources(context.Background(), &cobra.Command{}, []string{spec}, nil))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "native")
	plantBinary(t, &native.Cache{Root: root}, rel, script, true)
	return root
}

// plantBinary writes script as the binary of the entry rel of c, with its
// SHA-256 recorded as a build records it when record is set.
func plantBinary(t *testing.T, c *native.Cache, rel, script string, record bool) string {
	t.Helper()
	entry := filepath.Join(c.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(entry, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(entry, native.BinName)
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	if record {
		sum := sha256.Sum256([]byte(script))
		if err := c.Record(rel, sum[:]); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestCompilePlanted plants a binary at the predictable path of a spec's
// cache entry, one that says every check holds (issue 34): check
// --compile of that violated spec must not run it. Without a matching
// SHA-256 recorded by a build, or with one for other content, the binary
// is built again (by a stand-in go, whose binary reports the violation);
// an entry, a cache directory or a binary that others can write or own,
// and a binary that is not a regular file, are refused (exit 2), and
// nothing runs.
func TestCompilePlanted(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no Unix owners and modes, or no shell scripts")
	}
	spec := "../../examples/classic/diehard.wrap" // violated: exit 1
	planted := "#!/bin/sh\necho 'DieHard: every check holds'\nexit 0\n"
	built := "#!/bin/sh\necho 'rebuilt: violated'\nexit 1\n"
	tools := t.TempDir()
	if err := os.WriteFile(filepath.Join(tools, "built"), []byte(built), 0o755); err != nil {
		t.Fatal(err)
	}
	goScript := "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n\tif [ \"$1\" = -o ]; then cp " + filepath.Join(tools, "built") + " \"$2\"; fi\n\tshift\ndone\n"
	if err := os.WriteFile(filepath.Join(tools, "go"), []byte(goScript), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	rel, err := native.EntryName(nativeSources(context.Background(), &cobra.Command{}, []string{spec}, nil))
	if err != nil {
		t.Fatal(err)
	}
	const rebuild, refuse = "rebuilt: violated\n", ""
	tests := []struct {
		name  string
		setup func(t *testing.T, c *native.Cache, bin string) // after the binary is planted without a record
		out   string                                          // stdout: the rebuilt binary's, or none
		err   string                                          // in stderr
	}{
		{"no record", func(t *testing.T, c *native.Cache, bin string) {}, rebuild, "is not the binary built there"},
		{"another binary's record", func(t *testing.T, c *native.Cache, bin string) {
			sum := sha256.Sum256([]byte(built))
			if err := c.Record(rel, sum[:]); err != nil {
				t.Fatal(err)
			}
		}, rebuild, "is not the binary built there"},
		{"entry writable by others", func(t *testing.T, c *native.Cache, bin string) {
			plantBinary(t, c, rel, planted, true)
			if err := os.Chmod(filepath.Dir(bin), 0o777); err != nil {
				t.Fatal(err)
			}
		}, refuse, ": writable by other users (drwxrwxrwx): refusing to run a binary from it"},
		{"cache directory writable by group", func(t *testing.T, c *native.Cache, bin string) {
			plantBinary(t, c, rel, planted, true)
			if err := os.Chmod(filepath.Dir(c.Root), 0o770); err != nil {
				t.Fatal(err)
			}
		}, refuse, ": writable by other users (drwxrwx---)"},
		{"binary writable by others", func(t *testing.T, c *native.Cache, bin string) {
			plantBinary(t, c, rel, planted, true)
			if err := os.Chmod(bin, 0o777); err != nil {
				t.Fatal(err)
			}
		}, refuse, native.BinName + ": writable by other users (-rwxrwxrwx)"},
		{"binary a link", func(t *testing.T, c *native.Cache, bin string) {
			other := filepath.Join(t.TempDir(), "planted")
			if err := os.WriteFile(other, []byte(planted), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, bin); err != nil {
				t.Fatal(err)
			}
		}, refuse, native.BinName + ": not a regular file (L---------): remove it"},
		{"entry of another user", func(t *testing.T, c *native.Cache, bin string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a directory to another user")
			}
			plantBinary(t, c, rel, planted, true)
			if err := os.Lchown(filepath.Dir(bin), 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}, refuse, ": owned by uid 4242, not by this user (uid 0): refusing to run a binary from it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			t.Setenv(native.DirEnv, dir)
			c := &native.Cache{Root: filepath.Join(dir, "native")}
			bin := plantBinary(t, c, rel, planted, false)
			tt.setup(t, c, bin)
			var out, errb bytes.Buffer
			code := run([]string{"check", "--compile", spec}, &out, &errb)
			if strings.Contains(out.String(), "every check holds") {
				t.Fatalf("the planted binary ran: exit %d\n%s%s", code, out.String(), errb.String())
			}
			want := exitViolated
			if tt.out == refuse {
				want = exitUsage
			}
			if code != want || out.String() != tt.out || !strings.Contains(errb.String(), tt.err) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr with %q", code, out.String(), errb.String(), want, tt.out, tt.err)
			}
			if tt.out == rebuild {
				// The rebuilt binary is recorded: the next run runs it.
				var out, errb bytes.Buffer
				if code := run([]string{"check", "--compile", spec}, &out, &errb); code != exitViolated || out.String() != rebuild || errb.Len() > 0 {
					t.Errorf("again: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
				}
			}
		})
	}
}

// TestCompileTimeLeft checks that the compiled binary gets the time
// --timeout leaves after the build (its last --timeout, before any --),
// not the whole --timeout again.
func TestCompileTimeLeft(t *testing.T) {
	spec := "../../examples/classic/diehard.wrap"
	plantScript(t, spec, "#!/bin/sh\necho \"$*\"\n")
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "--timeout", "1h", "--workers=1", "--", spec}, &out, &errb)
	re := regexp.MustCompile(`^check --timeout 1h --workers=1 --timeout=(59m[0-9.]+s|1h0m0s) -- ` + regexp.QuoteMeta(spec) + "\n$")
	if code != 0 || !re.MatchString(out.String()) || errb.Len() > 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want stdout to match %s", code, out.String(), errb.String(), re)
	}
}
