// Package depcheck holds the test that enforces the dependency direction
// of docs/architecture.md: a package may import only the packages below it;
// and the test that keeps every hand-written Go file under 1,000 lines.
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
// (cluster's gocloud.dev is imported by its gocloud build tag alone: the
// default build links no cloud SDK, for start-up; cmd/wrapcheck's
// TestNoHeavyModules checks it.)
var allowed = map[string][]string{
	"cmd/wrapcheck":     {"", "internal/native", "cluster", "web/engine", "diff", "explain", "lsp", "mcp", "replay", "simulate", "verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax", "github.com/spf13/cobra", "guard", "internal/loopback", "testgen", "quant"},
	"lsp":               {"verify", "report", "checker", "machine", "spec", "spec/syntax"},
	"mcp":               {"docs", "examples", "explain", "replay", "verify", "report", "ltl", "checker", "machine", "spec", "spec/syntax", "github.com/modelcontextprotocol/go-sdk"},
	"guard":             {"internal/loopback", "replay", "report", "checker", "machine", "spec", "spec/syntax"},
	"internal/loopback": {},
	"replay":            {"report", "checker", "machine", "spec", "spec/syntax"},
	"diff":              {"verify", "report", "checker", "machine", "spec", "spec/syntax"},
	"explain":           {"verify", "report", "checker", "machine", "spec", "spec/syntax"},
	"verify":            {"ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"simulate":          {"checker", "machine", "spec", "spec/syntax"},
	"testgen":           {"report", "checker", "machine", "spec", "spec/syntax"},
	"report":            {"quant", "simulate", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax", "github.com/dominikbraun/graph"},
	"ltl":               {"reduce", "checker", "machine", "spec", "spec/syntax", "github.com/dominikbraun/graph"},
	"reduce":            {"checker", "machine", "spec", "spec/syntax"},
	"quant":             {"machine", "spec", "spec/syntax"}, // probabilities over the state space (issue 36)
	"checker":           {"machine", "spec", "spec/syntax"},
	"machine":           {"spec", "spec/syntax"},
	"spec":              {"spec/syntax"},
	"spec/syntax":       {"github.com/alecthomas/participle/v2"},
	"internal/golden":   {"github.com/google/go-cmp", "github.com/rogpeppe/go-internal"},
	"cluster":           {"checker", "machine", "spec", "gocloud.dev", "github.com/klauspost/compress"},
	"internal/oracle":   {"spec", "spec/syntax"}, // its tests alone may import machine, checker and verify, to compare
	"internal/gen":      {"spec", "spec/syntax"}, // random specs as source text, IR models and syntax trees; imported only by tests
	"internal/depcheck": {},
	"internal/native":   {"", "machine", "spec", "spec/syntax"},
	"":                  {}, // package wrapcheck: the embedded source for check --compile (cmd/wrapcheck, "" above)
	"docs":              {},
	"editors":           {},
	"bench":             {"verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"examples":          {"verify", "report", "ltl", "reduce", "checker", "machine", "spec", "spec/syntax"},
	"web/engine":        {"examples", "verify", "report", "checker", "machine", "spec", "spec/syntax"},
	"web/wasm":          {"web/engine"},
	"web/e2e":           {}, // tests alone: the playground in headless Chromium
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
		if imp == module+"/"+a || a == "" && imp == module {
			return true
		}
	}
	return false
}

func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// goModRequires returns the modules that ../../go.mod requires directly
// (those without an "// indirect" comment).
func goModRequires(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	direct := map[string]bool{}
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "require (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		if f := strings.Fields(line); len(f) >= 2 && !strings.Contains(line, "// indirect") {
			direct[f[0]] = true
		}
	}
	return direct
}

// TestTableModules checks the entries of the table themselves: an external
// module is one that go.mod requires directly, and a module package is a
// directory of the repository with Go files.
func TestTableModules(t *testing.T) {
	direct := goModRequires(t)
	if len(direct) == 0 {
		t.Fatal("go.mod: no direct requirement found")
	}
	for _, row := range sortedRows() {
		for _, a := range allowed[row] {
			if strings.Contains(a, ".") {
				if !direct[a] {
					t.Errorf("row %s allows %s, which go.mod does not require directly", row, a)
				}
				continue
			}
			if _, ok := allowed[topKey(a)]; !ok {
				t.Errorf("row %s allows %s, which has no row", row, a)
			}
			if _, err := build.ImportDir(filepath.Join("../..", filepath.FromSlash(a)), 0); err != nil {
				t.Errorf("row %s allows %s: %v", row, a, err)
			}
		}
	}
}

// TestTableLayered checks that the table is a layering: no package may
// import, directly or through others, a package that may import it.
func TestTableLayered(t *testing.T) {
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(row string, path []string)
	visit = func(row string, path []string) {
		path = append(path, row)
		switch state[row] {
		case active:
			t.Errorf("the table has a cycle: %s", strings.Join(path, " -> "))
			return
		case done:
			return
		}
		state[row] = active
		for _, a := range allowed[row] {
			if !strings.Contains(a, ".") {
				visit(topKey(a), path)
			}
		}
		state[row] = done
	}
	for _, row := range sortedRows() {
		visit(row, nil)
	}
}

// TestArchitectureTable checks that docs/architecture.md's table of
// packages says what the table here allows: the module packages named in
// its imports column (in backquotes) are those of the package's row, but
// spec/syntax, which every row above spec allows and the page leaves
// implicit. The row of cmd/wrapcheck ("everything above") is not compared.
func TestArchitectureTable(t *testing.T) {
	data, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(data), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		// the package is the first name in backquotes; the module root
		// is written `wrapcheck`
		pkg := strings.Split(strings.TrimSpace(cells[1]), "`")[1]
		if pkg == "wrapcheck" {
			pkg = ""
		}
		allow, ok := allowed[pkg]
		if !ok {
			t.Errorf("docs/architecture.md: package %s is not in the dependency table", pkg)
			continue
		}
		rows++
		if pkg == "cmd/wrapcheck" {
			continue
		}
		var doc []string
		parts := strings.Split(cells[3], "`")
		for i := 1; i < len(parts); i += 2 {
			if _, ok := allowed[parts[i]]; ok {
				doc = append(doc, parts[i])
			}
		}
		var table []string
		for _, a := range allow {
			if !strings.Contains(a, ".") && (a != "spec/syntax" || pkg == "spec") {
				table = append(table, a)
			}
		}
		sort.Strings(doc)
		sort.Strings(table)
		if strings.Join(doc, " ") != strings.Join(table, " ") {
			t.Errorf("docs/architecture.md: %s imports %v, the dependency table allows %v", pkg, doc, table)
		}
	}
	if rows < 10 {
		t.Errorf("docs/architecture.md: %d rows of packages found, want the whole table", rows)
	}
}

func sortedRows() []string {
	rows := make([]string, 0, len(allowed))
	for k := range allowed {
		rows = append(rows, k)
	}
	sort.Strings(rows)
	return rows
}
