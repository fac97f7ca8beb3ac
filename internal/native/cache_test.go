package native

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeEntry is a cache entry made without go build: a binary of bytes
// bytes (sparse), or none when incomplete, last used age ago.
type fakeEntry struct {
	Rel        string
	bytes      int64
	age        time.Duration
	incomplete bool
	held       bool // a shared lock is held on it during the eviction
}

// makeEntries writes es into a fresh cache and returns it with the locks
// of the held entries.
func makeEntries(t *testing.T, es []fakeEntry) (*Cache, []*Lock) {
	t.Helper()
	c := &Cache{Root: filepath.Join(t.TempDir(), "native")}
	var locks []*Lock
	now := time.Now()
	for _, e := range es {
		dir := filepath.Join(c.Root, filepath.FromSlash(e.Rel))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if !e.incomplete {
			bin := filepath.Join(dir, BinName)
			if err := os.WriteFile(bin, nil, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(bin, e.bytes); err != nil {
				t.Fatal(err)
			}
		}
		if e.held {
			l, err := c.Acquire(e.Rel)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(l.Release)
			locks = append(locks, l)
		}
		used := now.Add(-e.age)
		if err := os.Chtimes(dir, used, used); err != nil {
			t.Fatal(err)
		}
	}
	return c, locks
}

// TestEvict checks which entries an eviction removes, in which
// order, for each kind of limit, on a cache of fake entries.
func TestEvict(t *testing.T) {
	const day = 24 * time.Hour
	const mb = 1 << 20
	tests := []struct {
		name    string
		entries []fakeEntry
		limits  Limits
		want    []string // removed, in order
		left    []string // what scan finds after
	}{{
		name: "age",
		entries: []fakeEntry{
			{Rel: "h1/a", bytes: mb, age: 40 * day},
			{Rel: "h1/b", bytes: mb, age: 10 * day},
			{Rel: "h2/c", bytes: mb, age: 31 * day},
			{Rel: "h2/d", bytes: mb, age: time.Hour},
		},
		limits: Limits{MaxAge: 30 * day},
		want:   []string{"h1/a", "h2/c"},
		left:   []string{"h1/b", "h2/d"},
	}, {
		name: "size: least recently used first",
		entries: []fakeEntry{
			{Rel: "h/new", bytes: 30 * mb, age: time.Minute},
			{Rel: "h/old", bytes: 30 * mb, age: 3 * day},
			{Rel: "h/mid", bytes: 30 * mb, age: 2 * day},
			{Rel: "h/older", bytes: 30 * mb, age: 4 * day},
		},
		limits: Limits{MaxBytes: 70 * mb},
		want:   []string{"h/older", "h/old"},
		left:   []string{"h/mid", "h/new"},
	}, {
		name: "size: exactly at the limit",
		entries: []fakeEntry{
			{Rel: "h/a", bytes: 35 * mb, age: 2 * day},
			{Rel: "h/b", bytes: 35 * mb, age: day},
		},
		limits: Limits{MaxBytes: 70 * mb},
		left:   []string{"h/a", "h/b"},
	}, {
		name: "in use: never removed, still counted",
		entries: []fakeEntry{
			{Rel: "h/a", bytes: 50 * mb, age: 50 * day, held: true},
			{Rel: "h/b", bytes: 50 * mb, age: 2 * day},
			{Rel: "h/c", bytes: 10 * mb, age: day},
		},
		limits: Limits{MaxAge: 30 * day, MaxBytes: 60 * mb},
		want:   []string{"h/b"},
		left:   []string{"h/a", "h/c"},
	}, {
		name: "incomplete: removed unless building",
		entries: []fakeEntry{
			{Rel: "h/dead", incomplete: true, age: time.Minute},
			{Rel: "h/building", incomplete: true, held: true},
			{Rel: "h/ok", bytes: mb},
		},
		limits: DefaultLimits(),
		want:   []string{"h/dead"},
		left:   []string{"h/building", "h/ok"},
	}, {
		name: "all but in use",
		entries: []fakeEntry{
			{Rel: "h/a", bytes: mb, age: day},
			{Rel: "h/b", bytes: mb, held: true},
			{Rel: "g/c", bytes: mb, age: time.Hour},
		},
		limits: Limits{All: true},
		want:   []string{"h/a", "g/c"},
		left:   []string{"h/b"},
	}, {
		name: "no limits",
		entries: []fakeEntry{
			{Rel: "h/a", bytes: 900 * mb, age: 900 * day},
		},
		left: []string{"h/a"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := makeEntries(t, tt.entries)
			removed, err := c.Evict(tt.limits)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range removed {
				got = append(got, e.Rel)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("removed (-want +got):\n%s", d)
			}
			entries, stray, err := c.Scan()
			if err != nil || stray != nil {
				t.Fatal(err, stray)
			}
			var left []string
			for _, e := range entries {
				left = append(left, e.Rel)
			}
			if d := cmp.Diff(tt.left, left, cmpSorted); d != "" {
				t.Errorf("left (-want +got):\n%s", d)
			}
			// Nothing is left in the trash, and a source hash's
			// directory goes with its last entry.
			ds, _ := os.ReadDir(c.Root)
			for _, d := range ds {
				if strings.HasPrefix(d.Name(), trashPrefix) {
					t.Errorf("left in the trash: %s", d.Name())
				}
				if sub, _ := os.ReadDir(filepath.Join(c.Root, d.Name())); d.IsDir() && len(sub) == 0 {
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

// TestRace runs users of a few entries (each builds the binary when
// it is missing, by a rename as BuildOnce does, then checks it while
// holding the lock) against processes cleaning the whole cache at once:
// a user must never see its binary gone or changed, and the cleaners must
// have removed entries (else the test proves nothing).
func TestRace(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no flock")
	}
	c := &Cache{Root: filepath.Join(t.TempDir(), "native")}
	rels := []string{"h/a", "h/b", "g/c"}
	var stop atomic.Bool
	var uses, removals atomic.Int64
	var wg sync.WaitGroup
	errc := make(chan error, 100)
	for u := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				rel := rels[(u+i)%len(rels)]
				l, err := c.Acquire(rel)
				if err != nil {
					errc <- err
					return
				}
				bin := filepath.Join(c.Root, rel, BinName)
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
						l.Release()
						return
					}
				}
				for range 3 {
					runtime.Gosched()
					if got, err := os.ReadFile(bin); err != nil || !bytes.Equal(got, want) {
						errc <- fmt.Errorf("%s in use: %q, %v", rel, got, err)
					}
				}
				l.Release()
				uses.Add(1)
				time.Sleep(time.Duration(i%5) * 50 * time.Microsecond) // unused a while
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				removed, err := c.Evict(Limits{All: true})
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

// TestEvictUnreadable checks that an eviction of a cache with a directory
// it cannot read fails naming that directory.
func TestEvictUnreadable(t *testing.T) {
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		t.Skip("needs permissions that bind (not root)")
	}
	c, _ := makeEntries(t, []fakeEntry{{Rel: "h/a", bytes: 1, age: 100 * 24 * time.Hour}, {Rel: "g/b", bytes: 1}})
	if err := os.Chmod(filepath.Join(c.Root, "h"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(c.Root, "h"), 0o755)
	_, err := c.Evict(DefaultLimits())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(c.Root, "h")) {
		t.Errorf("evict of an unreadable directory: %v", err)
	}
}

// TestBuildOnce runs BuildOnce from three goroutines at once with a
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
	c := &Cache{Root: filepath.Join(dir, "native")}
	l, err := c.Acquire("h/k")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	entry := filepath.Join(c.Root, "h", "k")
	if err := os.MkdirAll(filepath.Join(entry, "build-dead", "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(entry, BinName)
	var wg sync.WaitGroup
	var builds atomic.Int32
	logs := make([]bytes.Buffer, 3)
	for i := range logs {
		wg.Go(func() {
			built, err := c.BuildOnce(context.Background(), goTool, "h/k", nil, &logs[i])
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
	if built, err := c.BuildOnce(context.Background(), goTool, "h/k", nil, io.Discard); built || err != nil {
		t.Errorf("again: built %v, %v", built, err)
	}
	if rest, _ := filepath.Glob(filepath.Join(entry, "build-*")); len(rest) > 0 {
		t.Errorf("left: %s", rest)
	}
}

// TestVerify checks which binaries Verify lets run: only a regular file
// whose SHA-256 is the recorded one, in a cache private to the user; a
// binary without a matching record is to be built again (false, no
// error), and one that others could have put there is refused (an
// error). Remove takes the record with the entry.
func TestVerify(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no Unix owners and modes")
	}
	const rel = "h/k"
	content := []byte("#!/bin/sh\nexit 0\n")
	tests := []struct {
		name  string
		setup func(t *testing.T, c *Cache, bin string)
		ok    bool
		err   string // in the error ("": none)
	}{
		{"recorded", func(t *testing.T, c *Cache, bin string) {}, true, ""},
		{"no binary", func(t *testing.T, c *Cache, bin string) { os.Remove(bin) }, false, ""},
		{"no record", func(t *testing.T, c *Cache, bin string) { os.Remove(c.sumPath(rel)) }, false, ""},
		{"changed", func(t *testing.T, c *Cache, bin string) { os.WriteFile(bin, []byte("#!/bin/sh\necho holds\n"), 0o700) }, false, ""},
		{"entry writable by group", func(t *testing.T, c *Cache, bin string) { os.Chmod(filepath.Dir(bin), 0o770) }, false, "writable by other users (drwxrwx---)"},
		{"root writable by others", func(t *testing.T, c *Cache, bin string) { os.Chmod(c.Root, 0o702) }, false, "writable by other users"},
		{"records writable by others", func(t *testing.T, c *Cache, bin string) { os.Chmod(filepath.Join(c.Root, sumsDir), 0o733) }, false, "writable by other users"},
		{"binary writable by group", func(t *testing.T, c *Cache, bin string) { os.Chmod(bin, 0o720) }, false, "writable by other users (-rwx-w----)"},
		{"binary a directory", func(t *testing.T, c *Cache, bin string) {
			os.Remove(bin)
			os.Mkdir(bin, 0o700)
		}, false, "not a regular file"},
		{"entry a link", func(t *testing.T, c *Cache, bin string) {
			other := t.TempDir()
			os.Rename(filepath.Dir(bin), filepath.Join(other, "k"))
			os.Symlink(filepath.Join(other, "k"), filepath.Dir(bin))
		}, false, "a symbolic link inside the cache"},
		{"binary of another user", func(t *testing.T, c *Cache, bin string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			os.Lchown(bin, 4242, 4242)
		}, false, "owned by uid 4242"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cache{Root: filepath.Join(t.TempDir(), "native")}
			l, err := c.Acquire(rel)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			bin := filepath.Join(c.Root, rel, BinName)
			if err := os.WriteFile(bin, content, 0o700); err != nil {
				t.Fatal(err)
			}
			sum, err := fileSum(bin)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Record(rel, sum); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, c, bin)
			ok, err := c.Verify(rel)
			if ok != tt.ok || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Verify: %v, %v; want %v, an error with %q", ok, err, tt.ok, tt.err)
			}
		})
	}
	// Remove takes the record with the entry.
	c := &Cache{Root: filepath.Join(t.TempDir(), "native")}
	l, err := c.Acquire(rel)
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if err := c.Record(rel, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Remove(rel); !ok || err != nil {
		t.Fatalf("Remove: %v, %v", ok, err)
	}
	if _, err := os.Stat(c.sumPath(rel)); err == nil {
		t.Errorf("the record of a removed entry is left")
	}
}
