package page

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestPageCurrent rebuilds the page from web/src (node web/build.mjs
// --page) and compares every file with page.zip: a change of the page's
// sources, of the lessons or of the bundled packages without a new
// page.zip fails here. WRAPCHECK_UPDATE=1 writes page.zip afresh. Without
// web/node_modules the test runs npm ci, which needs the npm registry: a
// slow test then.
func TestPageCurrent(t *testing.T) {
	node := testenv.Tool(t, "node", "install Node.js")
	web, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules", "esbuild")); err != nil {
		testenv.Slow(t, "npm ci from the npm registry")
		npm := testenv.Tool(t, "npm", "install npm")
		run(t, web, npm, "ci", "--no-audit", "--no-fund")
	}
	out := t.TempDir()
	run(t, web, node, "build.mjs", "--page", "--out", out)
	built := map[string]string{}
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".build-outputs.json" {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(out, p)
		built[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if golden.Update() {
		if err := os.WriteFile("page.zip", zipFiles(t, built), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	fsys, err := FS()
	if err != nil {
		t.Fatal(err)
	}
	embedded := map[string]string{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		embedded[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(names(built), names(embedded)); diff != "" {
		t.Fatalf("page.zip is not the page web/build.mjs --page builds (rebuild it: WRAPCHECK_UPDATE=1 go test ./web/page/); files (-built +page.zip):\n%s", diff)
	}
	for name, b := range built {
		if embedded[name] != b {
			t.Errorf("page.zip's %s differs from the built one (rebuild it: WRAPCHECK_UPDATE=1 go test ./web/page/)", name)
		}
	}
}

// TestPageServes: the embedded page has what ui serves first.
func TestPageServes(t *testing.T) {
	fsys, err := FS()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "app.js", "worker.js", "style.css", "lessons.json"} {
		if fi, err := fs.Stat(fsys, name); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := fs.Stat(fsys, "wrapcheck.wasm"); err == nil {
		t.Error("page.zip holds the wasm checker, which ui does not use")
	}
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// zipFiles writes the files in name order, with no times, so that the
// same page gives the same archive.
func zipFiles(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range names(files) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
