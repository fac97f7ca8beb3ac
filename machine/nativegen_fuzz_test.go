package machine

import (
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

// nativeChecker type-checks package machine as check --compile builds it:
// its files under the wrapcheck_native tag, with generated files added.
type nativeChecker struct {
	fset  *token.FileSet
	files []*ast.File // the package's own files, parsed once
	imp   types.Importer
}

// newNativeChecker parses the package's files for the wrapcheck_native
// tag and makes an importer of its imports from source (go/build finds
// them through the go command, which it needs on PATH).
func newNativeChecker(tb testing.TB) *nativeChecker {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("no Go toolchain on PATH (go/build resolves the imports with it)")
	}
	ctx := build.Default
	ctx.BuildTags = append(ctx.BuildTags, "wrapcheck_native")
	pkg, err := ctx.ImportDir(".", 0)
	if err != nil {
		tb.Fatal(err)
	}
	nc := &nativeChecker{fset: token.NewFileSet()}
	for _, name := range pkg.GoFiles {
		src, err := os.ReadFile(filepath.Join(".", name))
		if err != nil {
			tb.Fatal(err)
		}
		f, err := parser.ParseFile(nc.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			tb.Fatal(err)
		}
		nc.files = append(nc.files, f)
	}
	nc.imp = importer.ForCompiler(nc.fset, "source", nil)
	return nc
}

// check type-checks the package with the code of srcs and their table,
// and returns the first error: what go build would reject.
func (nc *nativeChecker) check(srcs ...*NativeSource) error {
	files := append([]*ast.File(nil), nc.files...)
	var keys []string
	for _, s := range srcs {
		keys = append(keys, s.Key)
		f, err := parser.ParseFile(nc.fset, "zz_native_"+s.Key+".go", s.Code, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	f, err := parser.ParseFile(nc.fset, "zz_native_table.go", NativeTable(keys), parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	files = append(files, f)
	conf := types.Config{Importer: nc.imp}
	_, err = conf.Check("github.com/wrapcheck/wrapcheck/machine", nc.fset, files, nil)
	return err
}

// FuzzGenerateNative checks that the Go code generated for any spec the
// front end accepts is accepted by the Go type checker within package
// machine, as go build of check --compile needs: a literal division by
// zero once made that build fail (issue 34), where the interpreter
// reports a runtime error or nothing. It type-checks instead of building,
// so that each input takes well under the fuzzing engine's 10 s; what
// the code does is FuzzCompiledAgrees's (cmd/wrapcheck), with the
// interpreter, through a built binary.
func FuzzGenerateNative(f *testing.F) {
	nc := newNativeChecker(f)
	addSpecSeeds(f, "../examples/*/*.wrap", "../spec/testdata/ok/*.wrap", "../cmd/wrapcheck/testdata/compile/*.wrap")
	f.Add([]byte("spec Z\nvar a: -3..3\naction s when a < 3 { a := a + 1 }\naction t { a := (a % 0) / 0 }\ninvariant I: 3 / 0 == a or a / (a - a) == 1\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := spec.ParseFile("fuzz.wrap", src, spec.Options{})
		if err != nil {
			return
		}
		p, err := Compile(m)
		if err != nil {
			return
		}
		ns, err := GenerateNative(p)
		if err != nil {
			return
		}
		if err := nc.check(ns); err != nil {
			t.Fatalf("go build would reject the generated code: %v", err)
		}
	})
}
