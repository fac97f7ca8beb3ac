// Package depcheck holds the test that enforces the dependency direction
// of docs/architecture.md: a package may import only the packages below it;
// and the test that keeps every hand-written Go file under 1,000 lines.
package depcheck

import (
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/wrapcheck/wrapcheck"

// allowed lists, per package directory, the module packages and external
// modules its non-test files import; every entry is one that some
// non-test file imports (TestTableExact), under the default build, the
// build tags gocloud and wrapcheck_native, or GOOS=js. The standard
// library is always allowed. This table is policy: change it in review,
// never to fix a build. (cluster's gocloud.dev is imported by its gocloud
// build tag alone: the default build links no cloud SDK, for start-up;
// cmd/wrapcheck's TestNoHeavyModules checks it.) Test files are not
// policed: a test may import a package above its own to compare with it.
var allowed = map[string][]string{
	"cmd/wrapcheck":             {"", "internal/native", "cluster", "web/engine", "web/page", "diff", "explain", "lsp", "mcp", "replay", "simulate", "verify", "report", "ltl", "verdict", "checker", "machine", "spec", "spec/syntax", "github.com/spf13/cobra", "guard", "internal/loopback", "testgen", "quant", "reduce"},
	"lsp":                       {"verify", "report", "verdict", "spec", "spec/syntax"},
	"mcp":                       {"docs", "examples", "explain", "replay", "verify", "report", "quant", "ltl", "verdict", "machine", "spec", "spec/syntax", "github.com/modelcontextprotocol/go-sdk"},
	"guard":                     {"internal/jsonscan", "internal/loopback", "replay", "report", "verdict", "machine", "spec"},
	"internal/loopback":         {},
	"internal/vmem":             {}, // growable arrays in reserved address space (the liveness product's)
	"replay":                    {"internal/jsonscan", "report", "verdict", "machine", "spec"},
	"internal/jsonscan":         {},
	"internal/jsonscan/jsonmut": {}, // imported only by tests
	"diff":                      {"verify", "report", "verdict", "machine", "spec"},
	"explain":                   {"verify", "report", "verdict", "machine", "spec"},
	"verify":                    {"ltl", "reduce", "checker", "verdict", "machine", "spec"},
	"simulate":                  {"verdict", "machine", "spec"},
	"testgen":                   {"report", "verdict", "machine", "spec"},
	"report":                    {"quant", "simulate", "verdict", "machine", "spec", "spec/syntax", "github.com/dominikbraun/graph"},
	"ltl":                       {"internal/vmem", "reduce", "verdict", "machine", "spec", "spec/syntax", "github.com/dominikbraun/graph"},
	"reduce":                    {"verdict", "machine", "spec"},
	"quant":                     {"machine", "spec"}, // probabilities over the state space (issue 36)
	"checker":                   {"verdict", "machine", "spec"},
	"verdict":                   {"internal/vmem", "machine", "spec"}, // the results, hooks and violation keys every engine shares
	"machine":                   {"spec"},
	"spec":                      {"spec/syntax"},
	"spec/syntax":               {"github.com/alecthomas/participle/v2"},
	"internal/golden":           {"github.com/google/go-cmp", "github.com/rogpeppe/go-internal"},
	"cluster":                   {"checker", "verdict", "machine", "spec", "gocloud.dev", "github.com/klauspost/compress"},
	"internal/oracle":           {"spec"},                // its tests alone import machine, checker and verify, to compare
	"internal/gen":              {"spec", "spec/syntax"}, // random specs as source text, IR models and syntax trees; imported only by tests
	"internal/testenv":          {},                      // the optional tools and the slow tests; imported only by tests
	"internal/depcheck":         {},
	"internal/native":           {"", "machine"},
	"":                          {}, // package wrapcheck: the embedded source for check --compile (cmd/wrapcheck, "" above)
	"docs":                      {},
	"editors":                   {},
	"bench":                     {}, // tests alone (and bench/bar, on the standard library)
	"examples":                  {}, // the embedded examples, and tests
	"web/engine":                {"examples", "verify", "report", "quant", "verdict", "machine", "spec", "spec/syntax"},
	"web/wasm":                  {"web/engine"},
	"web/page":                  {}, // the built page of wrapcheck ui, embedded
	"web/e2e":                   {}, // tests alone: the playground in headless Chromium
}

// contexts are the builds whose imports the tests read: the default, the
// build tags of the optional code (cluster's gocloud.dev, the compiled
// mode's generated code), and the browser's (web/wasm).
func contexts() []build.Context {
	tagged := build.Default
	tagged.BuildTags = []string{"gocloud", "wrapcheck_native"}
	js := build.Default
	js.GOOS, js.GOARCH = "js", "wasm"
	return []build.Context{build.Default, tagged, js}
}

// imports returns the imports of the non-test files of dir under every
// build of contexts; found is false when no build has a Go file there.
func imports(dir string) (imps []string, found bool, err error) {
	seen := map[string]bool{}
	for _, ctxt := range contexts() {
		pkg, err := ctxt.ImportDir(dir, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				continue
			}
			return nil, false, err
		}
		found = true
		for _, imp := range pkg.Imports {
			if !seen[imp] {
				seen[imp] = true
				imps = append(imps, imp)
			}
		}
	}
	sort.Strings(imps)
	return imps, found, nil
}

// packageDirs returns the directories of the repository, but testdata and
// hidden ones, relative to the root with forward slashes ("" for the root).
func packageDirs(t *testing.T) (root string, rels []string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
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
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		rels = append(rels, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(rels)
	return root, rels
}

func TestDependencies(t *testing.T) {
	root, rels := packageDirs(t)
	for _, rel := range rels {
		imps, found, err := imports(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if !found {
			continue
		}
		allow, ok := allowed[topKey(rel)]
		if !ok {
			t.Errorf("package %s is not in the dependency table: add it in review", rel)
			continue
		}
		for _, imp := range imps {
			if isStd(imp) {
				continue
			}
			if !permitted(imp, allow) {
				t.Errorf("%s imports %s, which the dependency table does not allow", rel, imp)
			}
		}
	}
}

// TestTableExact checks that the table lists only imports that exist:
// each entry of a row is imported by a non-test file of the row's
// packages (the package and the sub-packages that share its row), so
// that a row says what the package depends on, not what it once did.
func TestTableExact(t *testing.T) {
	root, rels := packageDirs(t)
	used := map[string][]string{} // row -> imports of its packages
	for _, rel := range rels {
		imps, _, err := imports(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		row := topKey(rel)
		used[row] = append(used[row], imps...)
	}
	for _, row := range sortedRows() {
		for _, a := range allowed[row] {
			if !slices.ContainsFunc(used[row], func(imp string) bool { return permitted(imp, []string{a}) }) {
				t.Errorf("row %q allows %q, which none of its packages imports: drop it in review", row, a)
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
// spec/syntax, which the page names only in spec's row. The row of
// cmd/wrapcheck ("everything above") is not compared.
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
