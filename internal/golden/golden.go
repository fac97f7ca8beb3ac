// Package golden holds what the golden-file tests share: the
// WRAPCHECK_UPDATE switch, a diff-reporting comparison of whole files, and
// txtar archives (github.com/rogpeppe/go-internal/txtar) whose sections
// hold a test's input and its expected output. It is imported only by
// _test.go files.
//
// An expected error is written one way everywhere: the exact text of the
// error, one "file:line:col: msg" per line, in a section named "error" of
// an archive ([Archive.CheckError]), or as the whole golden file of a spec
// the tools reject.
package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// Update reports whether goldens should be rewritten rather than compared
// (WRAPCHECK_UPDATE=1 go test ./...). An environment variable, not a flag:
// a flag breaks `go test ./...` in every package that does not define it.
func Update() bool { return os.Getenv("WRAPCHECK_UPDATE") != "" }

// Check compares got with the golden file path. With [Update] it rewrites
// the file instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run WRAPCHECK_UPDATE=1 go test to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// Glob returns the files matching pattern, sorted; it fails the test when
// there are none, so that a moved testdata directory cannot pass silently.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return files
}

// Archive is a txtar golden file: a comment, then named sections.
type Archive struct {
	Path string
	*txtar.Archive
}

// Load reads and parses the txtar archive path.
func Load(t testing.TB, path string) *Archive {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return &Archive{Path: path, Archive: ar}
}

// Name is the base name of the archive without its extension, the name a
// test gives the spec it holds.
func (a *Archive) Name() string {
	return strings.TrimSuffix(filepath.Base(a.Path), filepath.Ext(a.Path))
}

// Section returns the data of the first section called name.
func (a *Archive) Section(name string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// Need returns the data of the section called name and fails the test when
// there is none.
func (a *Archive) Need(t testing.TB, name string) []byte {
	t.Helper()
	data, ok := a.Section(name)
	if !ok {
		t.Fatalf("%s: no %s section", a.Path, name)
	}
	return data
}

// Spec returns the spec an archive holds: its in.wrap section or, when it
// has none, the file its model section names, a slash-separated path from
// the module root (a model of the shared corpus, which exists once).
func (a *Archive) Spec(t testing.TB) []byte {
	t.Helper()
	if src, ok := a.Section("in.wrap"); ok {
		return src
	}
	name, ok := a.Section("model")
	if !ok {
		t.Fatalf("%s: neither an in.wrap nor a model section", a.Path)
	}
	root, err := moduleRoot(filepath.Dir(a.Path))
	if err != nil {
		t.Fatalf("%s: %v", a.Path, err)
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(strings.TrimSpace(string(name)))))
	if err != nil {
		t.Fatalf("%s: model: %v", a.Path, err)
	}
	return src
}

// moduleRoot returns the nearest directory at or above dir that holds a
// go.mod file.
func moduleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = up
	}
}

// Defines parses the optional "defines" section, NAME=VALUE separated by
// white space, into the constant overrides of spec.Options. It returns an
// empty map when there is no such section.
func (a *Archive) Defines(t testing.TB) map[string]int64 {
	t.Helper()
	data, _ := a.Section("defines")
	out, err := ParseDefines(string(data))
	if err != nil {
		t.Fatalf("%s: defines: %v", a.Path, err)
	}
	return out
}

// ParseDefines parses NAME=VALUE pairs separated by white space, the
// defines of a golden section or of an expectations table.
func ParseDefines(s string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, d := range strings.Fields(s) {
		k, v, ok := strings.Cut(d, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not NAME=VALUE", d)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", d, err)
		}
		out[k] = n
	}
	return out, nil
}

// Check compares got with the section called name. With [Update] it sets
// the section instead (appending it when missing) and rewrites the file.
func (a *Archive) Check(t testing.TB, name string, got []byte) {
	t.Helper()
	if Update() {
		a.set(name, got)
		if err := os.WriteFile(a.Path, txtar.Format(a.Archive), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, ok := a.Section(name)
	if !ok {
		t.Fatalf("%s: no %s section (run WRAPCHECK_UPDATE=1 go test to create it)", a.Path, name)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s: %s mismatch (-want +got):\n%s", a.Path, name, diff)
	}
}

// CheckError compares err with the "error" section: the exact text of
// err.Error() followed by a newline. A nil err fails the test.
func (a *Archive) CheckError(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		want, _ := a.Section("error")
		t.Errorf("%s: no error, want:\n%s", a.Path, want)
		return
	}
	a.Check(t, "error", []byte(err.Error()+"\n"))
}

func (a *Archive) set(name string, data []byte) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, txtar.File{Name: name, Data: data})
}
