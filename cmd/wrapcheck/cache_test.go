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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// fakeEntry is a cache entry made without go build: a binary of bytes
// bytes (sparse), or none when incomplete, last used age ago.
type fakeEntry struct {
	rel        string
	bytes      int64
	age        time.Duration
	incomplete bool
	held       bool // a shared lock is held on it during the eviction
}

// makeEntries writes es into a fresh cache and returns it with the locks
// of the held entries.
func makeEntries(t *testing.T, es []fakeEntry) (*nativeCache, []*cacheLock) {
	t.Helper()
	c := &nativeCache{root: filepath.Join(t.TempDir(), "native")}
	var locks []*cacheLock
	now := time.Now()
	for _, e := range es {
		dir := filepath.Join(c.root, filepath.FromSlash(e.rel))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if !e.incomplete {
			bin := filepath.Join(dir, nativeBinName)
			if err := os.WriteFile(bin, nil, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(bin, e.bytes); err != nil {
				t.Fatal(err)
			}
		}
		if e.held {
			l, err := c.acquire(e.rel)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(l.release)
			locks = append(locks, l)
		}
		used := now.Add(-e.age)
		if err := os.Chtimes(dir, used, used); err != nil {
			t.Fatal(err)
		}
	}
	return c, locks
}

// TestCacheEvict checks which entries an eviction removes, in which
// order, for each kind of limit, on a cache of fake entries.
func TestCacheEvict(t *testing.T) {
	const day = 24 * time.Hour
	const mb = 1 << 20
	tests := []struct {
		name    string
		entries []fakeEntry
		limits  cacheLimits
		want    []string // removed, in order
		left    []string // what scan finds after
	}{{
		name: "age",
		entries: []fakeEntry{
			{rel: "h1/a", bytes: mb, age: 40 * day},
			{rel: "h1/b", bytes: mb, age: 10 * day},
			{rel: "h2/c", bytes: mb, age: 31 * day},
			{rel: "h2/d", bytes: mb, age: time.Hour},
		},
		limits: cacheLimits{maxAge: 30 * day},
		want:   []string{"h1/a", "h2/c"},
		left:   []string{"h1/b", "h2/d"},
	}, {
		name: "size: least recently used first",
		entries: []fakeEntry{
			{rel: "h/new", bytes: 30 * mb, age: time.Minute},
			{rel: "h/old", bytes: 30 * mb, age: 3 * day},
			{rel: "h/mid", bytes: 30 * mb, age: 2 * day},
			{rel: "h/older", bytes: 30 * mb, age: 4 * day},
		},
		limits: cacheLimits{maxBytes: 70 * mb},
		want:   []string{"h/older", "h/old"},
		left:   []string{"h/mid", "h/new"},
	}, {
		name: "size: exactly at the limit",
		entries: []fakeEntry{
			{rel: "h/a", bytes: 35 * mb, age: 2 * day},
			{rel: "h/b", bytes: 35 * mb, age: day},
		},
		limits: cacheLimits{maxBytes: 70 * mb},
		left:   []string{"h/a", "h/b"},
	}, {
		name: "in use: never removed, still counted",
		entries: []fakeEntry{
			{rel: "h/a", bytes: 50 * mb, age: 50 * day, held: true},
			{rel: "h/b", bytes: 50 * mb, age: 2 * day},
			{rel: "h/c", bytes: 10 * mb, age: day},
		},
		limits: cacheLimits{maxAge: 30 * day, maxBytes: 60 * mb},
		want:   []string{"h/b"},
		left:   []string{"h/a", "h/c"},
	}, {
		name: "incomplete: removed unless building",
		entries: []fakeEntry{
			{rel: "h/dead", incomplete: true, age: time.Minute},
			{rel: "h/building", incomplete: true, held: true},
			{rel: "h/ok", bytes: mb},
		},
		limits: defaultLimits(),
		want:   []string{"h/dead"},
		left:   []string{"h/building", "h/ok"},
	}, {
		name: "all but in use",
		entries: []fakeEntry{
			{rel: "h/a", bytes: mb, age: day},
			{rel: "h/b", bytes: mb, held: true},
			{rel: "g/c", bytes: mb, age: time.Hour},
		},
		limits: cacheLimits{all: true},
		want:   []string{"h/a", "g/c"},
		left:   []string{"h/b"},
	}, {
		name: "no limits",
		entries: []fakeEntry{
			{rel: "h/a", bytes: 900 * mb, age: 900 * day},
		},
		left: []string{"h/a"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := makeEntries(t, tt.entries)
			removed, err := c.evict(tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range removed {
				got = append(got, e.rel)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("removed (-want +got):\n%s", d)
			}
			entries, stray, err := c.scan()
			if err != nil || stray != nil {
				t.Fatal(err, stray)
			}
			var left []string
			for _, e := range entries {
				left = append(left, e.rel)
			}
			if d := cmp.Diff(tt.left, left, cmpSorted); d != "" {
				t.Errorf("left (-want +got):\n%s", d)
			}
			// Nothing is left in the trash, and a source hash's
			// directory goes with its last entry.
			ds, _ := os.ReadDir(c.root)
			for _, d := range ds {
				if strings.HasPrefix(d.Name(), trashPrefix) {
					t.Errorf("left in the trash: %s", d.Name())
				}
				if sub, _ := os.ReadDir(filepath.Join(c.root, d.Name())); d.IsDir() && len(sub) == 0 {
					t.Errorf("empty directory left: %s", d.Name())
				}
			}
		})
	}
}

// cmpSorted compares string slices as sets.
var cmpSorted = cmp.Transformer("sorted", func(s []string) []string {
	s = append([]string(nil), s...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
})

// TestCacheRace runs users of a few entries (each builds the binary when
// it is missing, by a rename as nativeBinary does, then checks it while
// holding the lock) against processes cleaning the whole cache at once:
// a user must never see its binary gone or changed, and the cleaners must
// have removed entries (else the test proves nothing).
func TestCacheRace(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	c := &nativeCache{root: filepath.Join(t.TempDir(), "native")}
	rels := []string{"h/a", "h/b", "g/c"}
	var stop atomic.Bool
	var uses, removals atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, 100)
	for u := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				rel := rels[(u+i)%len(rels)]
				l, err := c.acquire(rel)
				if err != nil {
					errc <- err
					return
				}
				bin := filepath.Join(c.root, rel, nativeBinName)
				want := []byte(rel)
				if _, err := os.Stat(bin); err != nil {
					tmp, err := os.MkdirTemp(filepath.Dir(bin), "build-")
					if err == nil {
						err = os.WriteFile(filepath.Join(tmp, "b"), want, 0o755)
					}
					if err == nil {
						err = os.Rename(filepath.Join(tmp, "b"), bin)
						os.RemoveAll(tmp)
					}
					if err != nil {
						errc <- fmt.Errorf("build %s: %v", rel, err)
						l.release()
						return
					}
				}
				for range 3 {
					runtime.Gosched()
					if got, err := os.ReadFile(bin); err != nil || !bytes.Equal(got, want) {
						errc <- fmt.Errorf("%s in use: %q, %v", rel, got, err)
					}
				}
				l.release()
				uses.Add(1)
				time.Sleep(time.Duration(i%5) * 50 * time.Microsecond) // unused a while
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				removed, err := c.evict(cacheLimits{all: true})
				if err != nil {
					errc <- err
					return
				}
				removals.Add(int64(len(removed)))
			}
		})
	}
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()
	close(errc)
	n := 0
	for err := range errc {
		if n++; n <= 5 {
			t.Error(err)
		}
	}
	t.Logf("%d uses, %d removals", uses.Load(), removals.Load())
	if uses.Load() < 10 || removals.Load() < 5 {
		t.Errorf("%d uses, %d removals: too few to test anything", uses.Load(), removals.Load())
	}
}

// holderEnv makes TestCacheHolder, run in a child process, hold the
// entry h/held of the cache at its value until its standard input ends.
const holderEnv = "WRAPCHECK_TEST_CACHE_HOLDER"

// TestCacheHolder is the child process of TestCacheOtherProcess.
func TestCacheHolder(t *testing.T) {
	root := os.Getenv(holderEnv)
	if root == "" {
		t.Skip("the child of TestCacheOtherProcess")
	}
	l, err := (&nativeCache{root: root}).acquire("h/held")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	l.release()
}

// TestCacheOtherProcess checks, through the command, that an entry
// another process holds is listed as in use and kept by clean, and
// removed once that process ended.
func TestCacheOtherProcess(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	dir := t.TempDir()
	t.Setenv(cacheDirEnv, dir)
	root := filepath.Join(dir, "native")
	if err := os.MkdirAll(filepath.Join(root, "h", "held"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "h", "held", nativeBinName), []byte("bin"), 0o755); err != nil {
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
			if err := os.WriteFile(filepath.Join(d, nativeBinName), nil, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(filepath.Join(d, nativeBinName), e.size); err != nil {
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
			t.Setenv(cacheDirEnv, tt.dir)
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
	t.Setenv(cacheDirEnv, file)
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "../../examples/classic/diehard.wrap"}, &out, &errb)
	want := "--compile: the cache of compiled binaries (" + cacheDirEnv + " moves it): mkdir " + file + ": not a directory\n"
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
	stamp, old := filepath.Join(root, evictStampName), time.Now().Add(-2*evictEvery)
	if err := os.Mkdir(stamp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(stamp, old, old); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"check", "--compile", "--workers", "1", spec}, &out, &errb)
	want := [3]any{exitViolated, "compiled: check --workers 1 " + spec + "\n", "wrapcheck: --compile: cache clean-up (the check goes on): open " + filepath.Join(root, evictStampName) + ": is a directory\n"}
	if d := cmp.Diff(want, [3]any{code, out.String(), errb.String()}); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestEvictUnreadable checks that an eviction of a cache with a directory
// it cannot read fails naming that directory.
func TestEvictUnreadable(t *testing.T) {
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		t.Skip("needs permissions that bind (not root)")
	}
	c, _ := makeEntries(t, []fakeEntry{{rel: "h/a", bytes: 1, age: 100 * 24 * time.Hour}, {rel: "g/b", bytes: 1}})
	if err := os.Chmod(filepath.Join(c.root, "h"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(c.root, "h"), 0o755)
	_, err := c.evict(defaultLimits())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(c.root, "h")) {
		t.Errorf("evict of an unreadable directory: %v", err)
	}
}

// TestBuildOnce runs buildOnce from three goroutines at once with a
// stand-in go command (a script that counts its runs, waits, and writes
// its -o file): one builds, the others wait and find the binary; what a
// build that died left in the entry is removed; a later call builds
// nothing.
func TestBuildOnce(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock, or no shell scripts")
	}
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	goTool := filepath.Join(dir, "go")
	script := `#!/bin/sh
echo run >> ` + count + `
sleep 0.3
while [ $# -gt 0 ]; do
	if [ "$1" = -o ]; then echo built > "$2"; fi
	shift
done
`
	if err := os.WriteFile(goTool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &nativeCache{root: filepath.Join(dir, "native")}
	l, err := c.acquire("h/k")
	if err != nil {
		t.Fatal(err)
	}
	defer l.release()
	entry := filepath.Join(c.root, "h", "k")
	if err := os.MkdirAll(filepath.Join(entry, "build-dead", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(entry, nativeBinName)
	var wg sync.WaitGroup
	var builds atomic.Int32
	logs := make([]bytes.Buffer, 3)
	for i := range logs {
		wg.Go(func() {
			built, err := c.buildOnce(context.Background(), goTool, "h/k", nil, &logs[i])
			if err != nil {
				t.Error(err)
			}
			if built {
				builds.Add(1)
			}
		})
	}
	wg.Wait()
	runs, _ := os.ReadFile(count)
	got, _ := os.ReadFile(bin)
	_, deadErr := os.Stat(filepath.Join(entry, "build-dead"))
	if builds.Load() != 1 || string(runs) != "run\n" || string(got) != "built\n" || deadErr == nil {
		t.Errorf("%d built, go ran %q, binary %q, the dead build's directory: %v", builds.Load(), runs, got, deadErr)
	}
	if built, err := c.buildOnce(context.Background(), goTool, "h/k", nil, io.Discard); built || err != nil {
		t.Errorf("again: built %v, %v", built, err)
	}
	if rest, _ := filepath.Glob(filepath.Join(entry, "build-*")); len(rest) > 0 {
		t.Errorf("left: %s", rest)
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
	t.Setenv(cacheDirEnv, dir)
	rel, err := nativeEntry(nativeSources(&cobra.Command{}, []string{spec}, nil))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "native")
	plantBinary(t, &nativeCache{root: root}, rel, script, true)
	return root
}

// plantBinary writes script as the binary of the entry rel of c, with its
// SHA-256 recorded as a build records it when record is set.
func plantBinary(t *testing.T, c *nativeCache, rel, script string, record bool) string {
	t.Helper()
	entry := filepath.Join(c.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(entry, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(entry, nativeBinName)
	if err := os.WriteFile(bin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	if record {
		sum := sha256.Sum256([]byte(script))
		if err := c.record(rel, sum[:]); err != nil {
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
	rel, err := nativeEntry(nativeSources(&cobra.Command{}, []string{spec}, nil))
	if err != nil {
		t.Fatal(err)
	}
	const rebuild, refuse = "rebuilt: violated\n", ""
	tests := []struct {
		name  string
		setup func(t *testing.T, c *nativeCache, bin string) // after the binary is planted without a record
		out   string                                         // stdout: the rebuilt binary's, or none
		err   string                                         // in stderr
	}{
		{"no record", func(t *testing.T, c *nativeCache, bin string) {}, rebuild, "is not the binary built there"},
		{"another binary's record", func(t *testing.T, c *nativeCache, bin string) {
			sum := sha256.Sum256([]byte(built))
			if err := c.record(rel, sum[:]); err != nil {
				t.Fatal(err)
			}
		}, rebuild, "is not the binary built there"},
		{"entry writable by others", func(t *testing.T, c *nativeCache, bin string) {
			plantBinary(t, c, rel, planted, true)
			if err := os.Chmod(filepath.Dir(bin), 0o777); err != nil {
				t.Fatal(err)
			}
		}, refuse, ": writable by other users (drwxrwxrwx): refusing to run a binary from it"},
		{"cache directory writable by group", func(t *testing.T, c *nativeCache, bin string) {
			plantBinary(t, c, rel, planted, true)
			if err := os.Chmod(filepath.Dir(c.root), 0o770); err != nil {
				t.Fatal(err)
			}
		}, refuse, ": writable by other users (drwxrwx---)"},
		{"binary writable by others", func(t *testing.T, c *nativeCache, bin string) {
			plantBinary(t, c, rel, planted, true)
			if err := os.Chmod(bin, 0o777); err != nil {
				t.Fatal(err)
			}
		}, refuse, nativeBinName + ": writable by other users (-rwxrwxrwx)"},
		{"binary a link", func(t *testing.T, c *nativeCache, bin string) {
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
		}, refuse, nativeBinName + ": not a regular file (L---------): remove it"},
		{"entry of another user", func(t *testing.T, c *nativeCache, bin string) {
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
			t.Setenv(cacheDirEnv, dir)
			c := &nativeCache{root: filepath.Join(dir, "native")}
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
