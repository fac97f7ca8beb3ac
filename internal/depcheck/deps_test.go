// Package depcheck holds the test that enforces the dependency direction
// of docs/architecture.md: a package may import only the packages below it.
package depcheck

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/wrapcheck/wrapcheck"

// allowed lists, per package directory, the module packages and external
// modules its non-test files may import. The standard library is always
// allowed. This table is policy: change it in review, never to fix a build.
var allowed = map[string][]string{
	"cmd/wrapcheck":     {"dist", "gocloud.dev", "web/engine", "diff", "explain", "lsp", "mcp", "replay", "verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax", "github.com/spf13/cobra", "github.com/dominikbraun/graph"},
	"lsp":               {"verify", "report", "checker", "machine", "spec", "spec/syntax"},
	"mcp":               {"docs", "examples", "explain", "replay", "verify", "report", "ltl", "checker", "machine", "spec", "spec/syntax", "github.com/modelcontextprotocol/go-sdk"},
	"replay":            {"report", "checker", "machine", "spec", "spec/syntax"},
	"diff":              {"verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"explain":           {"verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"verify":            {"ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"report":            {"ltl", "reduce", "checker", "machine", "spec", "spec/syntax", "github.com/dominikbraun/graph"},
	"ltl":               {"reduce", "checker", "machine", "spec", "spec/syntax", "github.com/dominikbraun/graph"},
	"reduce":            {"checker", "machine", "spec", "spec/syntax"},
	"checker":           {"machine", "spec", "spec/syntax"},
	"machine":           {"spec", "spec/syntax"},
	"spec":              {"spec/syntax"},
	"spec/syntax":       {"github.com/alecthomas/participle/v2"},
	"internal/golden":   {"github.com/google/go-cmp", "github.com/rogpeppe/go-internal"},
	"dist":              {"checker", "machine", "spec", "gocloud.dev", "github.com/klauspost/compress"},
	"internal/oracle":   {"spec", "spec/syntax"}, // its tests alone may import machine, checker and verify, to compare
	"internal/depcheck": {},
	"docs":              {},
	"editors":           {},
	"bench":             {"verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"examples":          {"verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"web":               {"examples", "verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"web/wasm":          {"web/engine"},
}

func TestDependencies(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		dirs = append(dirs, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue
			}
			t.Errorf("%s: %v", dir, err)
			continue
		}
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		allow, ok := allowed[topKey(rel)]
		if !ok {
			t.Errorf("package %s is not in the dependency table: add it in review", rel)
			continue
		}
		for _, imp := range pkg.Imports {
			if isStd(imp) {
				continue
			}
			if !permitted(imp, allow) {
				t.Errorf("%s imports %s, which the dependency table does not allow", rel, imp)
			}
		}
	}
}

// topKey maps a package directory to its row: a sub-package of a listed
// package shares the row of its nearest listed ancestor.
func topKey(rel string) string {
	for k := rel; k != ""; {
		if _, ok := allowed[k]; ok {
			return k
		}
		i := strings.LastIndex(k, "/")
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return rel
}

func permitted(imp string, allow []string) bool {
	for _, a := range allow {
		if strings.Contains(a, ".") {
			if imp == a || strings.HasPrefix(imp, a+"/") {
				return true
			}
			continue
		}
		if imp == module+"/"+a {
			return true
		}
	}
	return false
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
