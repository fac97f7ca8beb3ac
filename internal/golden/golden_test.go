package golden

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.Errorf("%s", fmt.Sprint(args...))
	runtime.Goexit()
}

// record runs f with a recorder in its own goroutine (Fatalf ends it) and
// reports whether f failed.
func record(t *testing.T, f func(tb testing.TB)) bool {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return len(r.failed) > 0
}

const archive = `A comment.
-- in.wrap --
spec X
-- defines --
N=3 K=-1
-- out/result --
holds
-- error --
x.wrap:1:2: bad
`

func TestArchive(t *testing.T) {
	tests := []struct {
		name     string
		check    func(tb testing.TB, a *Archive)
		wantFail bool
	}{
		{"same", func(tb testing.TB, a *Archive) { a.Check(tb, "out/result", []byte("holds\n")) }, false},
		{"differs", func(tb testing.TB, a *Archive) { a.Check(tb, "out/result", []byte("violated\n")) }, true},
		{"no section", func(tb testing.TB, a *Archive) { a.Check(tb, "out/other", []byte("holds\n")) }, true},
		{"need missing", func(tb testing.TB, a *Archive) { a.Need(tb, "options") }, true},
		{"need present", func(tb testing.TB, a *Archive) { a.Need(tb, "in.wrap") }, false},
		{"same error", func(tb testing.TB, a *Archive) { a.CheckError(tb, errors.New("x.wrap:1:2: bad")) }, false},
		{"other error", func(tb testing.TB, a *Archive) { a.CheckError(tb, errors.New("x.wrap:1:3: bad")) }, true},
		{"no error", func(tb testing.TB, a *Archive) { a.CheckError(tb, nil) }, true},
	}
	path := filepath.Join(t.TempDir(), "case.txtar")
	if err := os.WriteFile(path, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Load(t, path)
			if got := record(t, func(tb testing.TB) { tt.check(tb, a) }); got != tt.wantFail {
				t.Errorf("failed = %v, want %v", got, tt.wantFail)
			}
		})
	}
}

func TestArchiveParts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.txtar")
	if err := os.WriteFile(path, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	a := Load(t, path)
	if got := a.Name(); got != "case" {
		t.Errorf("Name() = %q, want case", got)
	}
	if diff := cmp.Diff(map[string]int64{"N": 3, "K": -1}, a.Defines(t)); diff != "" {
		t.Errorf("Defines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("A comment.\n", string(a.Comment)); diff != "" {
		t.Errorf("comment (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"N", "N=x"} {
		if _, err := ParseDefines(bad); err == nil {
			t.Errorf("ParseDefines(%q) succeeded", bad)
		}
	}
}

// TestUpdate: with WRAPCHECK_UPDATE the archive is rewritten with the new
// section and every other byte kept; a missing section is appended.
func TestUpdate(t *testing.T) {
	t.Setenv("WRAPCHECK_UPDATE", "1")
	path := filepath.Join(t.TempDir(), "case.txtar")
	if err := os.WriteFile(path, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	a := Load(t, path)
	a.Check(t, "out/result", []byte("holds\n"))
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(archive, string(got)); diff != "" {
		t.Errorf("an unchanged update rewrote (-want +got):\n%s", diff)
	}
	a.Check(t, "out/result", []byte("violated"))
	a.Check(t, "out/new", []byte("new\n"))
	got, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "A comment.\n-- in.wrap --\nspec X\n-- defines --\nN=3 K=-1\n-- out/result --\nviolated\n-- error --\nx.wrap:1:2: bad\n-- out/new --\nnew\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("updated archive (-want +got):\n%s", diff)
	}
}

// TestSpec: the spec of an archive is its in.wrap section, or the file its
// model section names from the module root.
func TestSpec(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                 "module example.com/m\n",
		"models/a.wrap":          "spec A\n",
		"pkg/testdata/in.txtar":  "-- in.wrap --\nspec B\n-- model --\nmodels/a.wrap\n",
		"pkg/testdata/ref.txtar": "-- model --\nmodels/a.wrap\n",
		"pkg/testdata/bad.txtar": "-- model --\nmodels/none.wrap\n",
		"pkg/testdata/no.txtar":  "-- out/result --\nholds\n",
	}
	for name, data := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		file, want string
		wantFail   bool
	}{
		{"in.txtar", "spec B\n", false},
		{"ref.txtar", "spec A\n", false},
		{"bad.txtar", "", true},
		{"no.txtar", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			a := Load(t, filepath.Join(root, "pkg", "testdata", tt.file))
			var got []byte
			failed := record(t, func(tb testing.TB) { got = a.Spec(tb) })
			if failed != tt.wantFail {
				t.Fatalf("failed = %v, want %v", failed, tt.wantFail)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Spec (-want +got):\n%s", diff)
			}
		})
	}
}
