package spec_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestInfoCoversEveryIdent checks that Check records every identifier of
// every spec that checks (the examples, every testdata spec of the
// repository, random specs of each shape) in Info.Defs or Info.Uses, so
// that a new binding form cannot pass Check and be missed by the language
// server's hover and rename.
func TestInfoCoversEveryIdent(t *testing.T) {
	srcs := repoSpecs(t)
	n := 40
	if testenv.Short(t) {
		n = 5
	}
	shapes := map[string]gen.Config{
		"mixed": {}, "symmetric": {Shape: gen.Symmetric, Failing: true}, "temporal": {Shape: gen.Temporal},
		"exact": {Shape: gen.Exact}, "constants": {Shape: gen.Exact, Constants: true}, "pair": {Shape: gen.Pair},
		"past": {Shape: gen.Past}, "live": {Shape: gen.Live},
	}
	for name, cfg := range shapes {
		for seed := range uint64(n) {
			cfg.Index = int(seed)
			s := gen.Generate(rand.New(rand.NewPCG(seed, 35)), cfg)
			for k, src := range []string{s.Source, s.Mutant, s.Base} {
				if src != "" {
					srcs[fmt.Sprintf("gen/%s-%d-%d.wrap", name, seed, k)] = src
				}
			}
		}
	}
	srcs["gen/big.wrap"] = gen.Generate(nil, gen.Config{Shape: gen.Big, Lines: 1000}).Source
	checked := 0
	for name, src := range srcs {
		f, err := syntax.Parse(name, []byte(src))
		if err != nil {
			continue
		}
		// the hostile specs of the repository's testdata are refused
		// (or cut off here), not checked
		info := &spec.Info{}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err = spec.Check(f, spec.Options{Info: info, Context: ctx})
		cancel()
		if err != nil {
			continue
		}
		checked++
		for _, id := range fileIdents(f) {
			if info.Defs[id] == nil && info.Uses[id] == nil {
				t.Errorf("%s: %s (%s) is neither in Info.Defs nor in Info.Uses", id.Pos, id.Name, name)
			}
		}
		declared := map[*spec.Object]bool{}
		for _, o := range info.Defs {
			declared[o] = true
		}
		for id, o := range info.Uses {
			implicit := o.Kind == spec.ObjResult || o.Kind == spec.ObjBuiltin || o.Kind == spec.ObjProcess && o.Decl == nil
			if o.Name != id.Name || !declared[o] && !implicit {
				t.Errorf("%s: %s (%s) refers to %s %s declared at %s, not a declaration of the file", id.Pos, id.Name, name, o.Kind, o.Name, o.Pos)
			}
		}
	}
	// the repository's specs (about 230) and most random ones
	if want := 200 + 8*n; checked < want {
		t.Errorf("only %d specs checked, want at least %d", checked, want)
	}
}

// repoSpecs returns the .wrap files of the repository and the .wrap
// sections of its txtar archives, by path.
func repoSpecs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		switch {
		case strings.HasSuffix(path, ".wrap"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] = string(b)
		case strings.HasSuffix(path, ".txtar"):
			ar, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range ar.Files {
				if strings.HasSuffix(f.Name, ".wrap") {
					out[path+"/"+f.Name] = string(f.Data)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("found only %d specs in the repository", len(out))
	}
	return out
}

// fileIdents returns every identifier of f, walking the syntax tree on
// its own (not as the checker does).
func fileIdents(f *syntax.File) []*syntax.Ident {
	var out []*syntax.Ident
	id := func(x *syntax.Ident) { out = append(out, x) }
	var typ func(syntax.TypeExpr)
	var expr func(syntax.Expr)
	var stmt func(syntax.Stmt)
	params := func(ps []*syntax.Param) {
		for _, p := range ps {
			id(&p.Name)
			typ(p.Type)
		}
	}
	typ = func(t syntax.TypeExpr) {
		switch t := t.(type) {
		case *syntax.NamedType:
			id(t.Ident())
		case *syntax.RangeType:
			expr(t.Lo)
			expr(t.Hi)
		case *syntax.EnumType:
			for i := range t.Members {
				id(&t.Members[i])
			}
		case *syntax.SymmetricType:
			expr(t.N)
		case *syntax.ArrayType:
			typ(t.Index)
			typ(t.Elem)
		case *syntax.RecordType:
			params(t.Fields)
		case *syntax.SetType:
			typ(t.Elem)
		}
	}
	expr = func(e syntax.Expr) {
		switch e := e.(type) {
		case *syntax.IdentExpr:
			id(e.Ident())
		case *syntax.UnaryExpr:
			expr(e.X)
		case *syntax.BinaryExpr:
			expr(e.X)
			expr(e.Y)
		case *syntax.IndexExpr:
			expr(e.X)
			expr(e.Index)
		case *syntax.SelectorExpr:
			expr(e.X)
			id(&e.Field)
		case *syntax.CallExpr:
			id(&e.Fn)
			for _, a := range e.Args {
				expr(a)
			}
		case *syntax.AskExpr:
			id(&e.Agent)
			for _, a := range e.Args {
				expr(a)
			}
		case *syntax.CondExpr:
			expr(e.Cond)
			expr(e.Then)
			expr(e.Else)
		case *syntax.QuantExpr:
			id(&e.Var)
			typ(e.Domain)
			expr(e.Body)
		case *syntax.SetLit:
			for _, x := range e.Elems {
				expr(x)
			}
		case *syntax.RecordLit:
			for _, fi := range e.Fields {
				id(&fi.Name)
				expr(fi.Value)
			}
		case *syntax.ParenExpr:
			expr(e.X)
		}
	}
	block := func(b *syntax.Block) {
		if b != nil {
			stmt(b)
		}
	}
	stmt = func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.Block:
			for _, x := range s.Stmts {
				stmt(x)
			}
		case *syntax.AssignStmt:
			expr(s.Target)
			expr(s.Value)
		case *syntax.LetStmt:
			id(&s.Name)
			expr(s.Value)
		case *syntax.ChooseStmt:
			id(&s.Var)
			typ(s.Domain)
			expr(s.Where)
			block(s.Body)
		case *syntax.IfStmt:
			expr(s.Cond)
			block(s.Then)
			if s.Else != nil {
				stmt(s.Else)
			}
		case *syntax.MatchStmt:
			expr(s.X)
			for _, c := range s.Cases {
				for _, v := range c.Values {
					expr(v)
				}
				if c.Body != nil {
					stmt(c.Body)
				}
			}
		case *syntax.AssertStmt:
			expr(s.Cond)
		}
	}
	action := func(a *syntax.ActionDecl) {
		id(&a.Name)
		expr(a.Guard)
		block(a.Body)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *syntax.ConstDecl:
			id(&d.Name)
			expr(d.Value)
		case *syntax.TypeDecl:
			id(&d.Name)
			typ(d.Type)
		case *syntax.VarDecl:
			id(&d.Name)
			typ(d.Type)
			expr(d.Init)
		case *syntax.FnDecl:
			id(&d.Name)
			params(d.Params)
			typ(d.Result)
			expr(d.Body)
		case *syntax.AgentDecl:
			id(&d.Name)
			params(d.Params)
			typ(d.Result)
			expr(d.Assume)
		case *syntax.ProcessDecl:
			id(&d.Name)
			if d.Index != nil {
				id(&d.Index.Name)
				typ(d.Index.Type)
			}
			for _, v := range d.Vars {
				id(&v.Name)
				typ(v.Type)
				expr(v.Init)
			}
			for _, a := range d.Actions {
				action(a)
			}
		case *syntax.ActionDecl:
			action(d)
		case *syntax.InitDecl:
			block(d.Body)
		case *syntax.InvariantDecl:
			id(&d.Name)
			expr(d.Expr)
		case *syntax.PropertyDecl:
			id(&d.Name)
			expr(d.Formula)
		case *syntax.TerminalDecl:
			expr(d.Expr)
		case *syntax.FairnessDecl:
			id(&d.Process)
			if d.Action != nil {
				id(d.Action)
			}
		}
	}
	return out
}

// TestInfo checks what Info records for a small spec: what each use
// refers to (also inside a fn body inlined at two calls with constant
// arguments), the types of names used as values, and the scopes.
func TestInfo(t *testing.T) {
	const src = `spec I
const N = 2
type P = 0..N
fn inc(x: P): 0..5 = x + N
process w[i: P] {
  var n: P
  action go when forall k in P: k <= n { let m = inc(n) + inc(1) + count q in P: q == i }
}
invariant Small: w[0].n <= N
`
	f, err := syntax.Parse("i.wrap", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info := &spec.Info{}
	if _, err := spec.Check(f, spec.Options{Info: info}); err != nil {
		t.Fatal(err)
	}
	byPos := map[string]*syntax.Ident{}
	for _, id := range fileIdents(f) {
		byPos[fmt.Sprintf("%d:%d", id.Pos.Line, id.Pos.Col)] = id
	}
	tests := []struct {
		at       string // line:col of an identifier
		kind     spec.ObjKind
		declared string // line:col of the declaration it refers to
		typ      string // the object's type
	}{
		{"4:22", spec.ObjParam, "4:8", "P"},
		{"4:26", spec.ObjConst, "2:7", "int"},
		{"7:38", spec.ObjLocal, "6:7", "P"},
		{"7:46", spec.ObjLet, "7:46", "int"},
		{"7:50", spec.ObjFn, "4:4", "0..5"},
		{"7:87", spec.ObjIndex, "5:11", "P"},
		{"7:82", spec.ObjQuant, "7:74", "P"},
		{"9:18", spec.ObjProcess, "5:9", ""},
		{"9:23", spec.ObjLocal, "6:7", "P"},
		{"9:28", spec.ObjConst, "2:7", "int"},
	}
	for _, tt := range tests {
		id := byPos[tt.at]
		if id == nil {
			t.Fatalf("no identifier at %s", tt.at)
		}
		o := info.ObjectOf(id)
		if o == nil {
			t.Errorf("%s %s: no object", tt.at, id.Name)
			continue
		}
		typ := ""
		if o.Type != nil {
			typ = spec.TypeString(o.Type, 0)
		}
		got := fmt.Sprintf("%s %d:%d %s", o.Kind, o.Pos.Line, o.Pos.Col, typ)
		if want := fmt.Sprintf("%s %s %s", tt.kind, tt.declared, tt.typ); got != want {
			t.Errorf("%s %s refers to %q, want %q", tt.at, id.Name, got, want)
		}
	}
	// The uses of x in the body inlined twice refer to the one parameter.
	if x := info.Uses[byPos["4:22"]]; x != info.Defs[byPos["4:8"]] {
		t.Errorf("x in inc's body refers to %+v, not its parameter", x)
	}
	// Types of names used as values.
	for at, want := range map[string]string{"4:22": "P", "7:38": "P", "9:28": "int", "7:82": "P"} {
		e := syntax.Expr((*syntax.IdentExpr)(byPos[at]))
		if got := spec.TypeString(info.Types[e], 0); got != want {
			t.Errorf("type of %s = %s, want %s", at, got, want)
		}
	}
	// Scopes: k is visible in its quantifier's body only; m and q in the
	// action's block.
	for _, tt := range []struct {
		line, col int
		name      string
		visible   bool
	}{
		{7, 33, "k", true}, {7, 46, "k", false}, {7, 46, "i", true}, {7, 82, "q", true},
		{7, 50, "q", false}, {9, 18, "k", false}, {9, 18, "N", true}, {4, 22, "x", true}, {7, 33, "x", false},
	} {
		found := false
		for s := info.Global.Innermost(syntax.Position{Line: tt.line, Col: tt.col}); s != nil; s = s.Parent {
			found = found || s.Lookup(tt.name) != nil
		}
		if found != tt.visible {
			t.Errorf("%s visible at %d:%d: %v, want %v", tt.name, tt.line, tt.col, found, tt.visible)
		}
	}
}
