package spec

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// vetStarts warns about a variable whose range, written in its
// declaration, includes 0 but starts below it (an extension): with no
// "= e" a variable starts at its type's lower bound, so `var x: -5..5`
// starts at -5, a trap for anyone from C, Promela, DVE or TLA+. A named
// range (`type Opt = -1..N`, where -1 is "none") says its lower bound
// is meant, and a variable that the init block assigns is left alone.
func (c *checker) vetStarts(add func(pos Position, format string, args ...any)) {
	inited := map[string]bool{}
	for _, d := range c.file.Decls {
		if d, ok := d.(*syntax.InitDecl); ok && d.Body != nil {
			assignedNames(d.Body, inited)
		}
	}
	check := func(o *object, name string) {
		if o.vdecl == nil || o.vdecl.Init != nil || o.typ == nil || inited[name] {
			return
		}
		_, inline := o.vdecl.Type.(*syntax.RangeType)
		var inlineElem bool
		if a, ok := o.vdecl.Type.(*syntax.ArrayType); ok {
			_, inlineElem = a.Elem.(*syntax.RangeType)
		}
		switch t := o.typ; {
		case inline && startsBelowZero(t):
			add(o.pos, "variable %s: %s starts at %d; write = 0 if you mean zero", name, typeString(t), t.Lo)
		case inlineElem && t.Kind == ArrayKind && t.Elem != nil && startsBelowZero(t.Elem):
			add(o.pos, "the elements of variable %s: %s start at %d; set them in init if you mean zero", name, typeString(t), t.Elem.Lo)
		}
	}
	for _, o := range c.vars {
		check(o, o.name)
	}
	seen := map[Position]bool{}
	for _, p := range c.procs {
		for _, o := range p.locals {
			if !seen[o.pos] {
				seen[o.pos] = true
				check(o, fmt.Sprintf("%s.%s", p.name, o.name))
			}
		}
	}
}

// startsBelowZero reports whether t is a range that includes 0 and starts
// below it.
func startsBelowZero(t *Type) bool {
	return t.Kind == RangeKind && t.Lo < 0 && t.Hi >= 0
}

// assignedNames records the names of the variables that the statements
// of b assign to (the root of each target).
func assignedNames(b *syntax.Block, names map[string]bool) {
	var stmt func(s syntax.Stmt)
	stmt = func(s syntax.Stmt) {
		switch s := s.(type) {
		case *syntax.Block:
			if s == nil {
				return
			}
			for _, x := range s.Stmts {
				stmt(x)
			}
		case *syntax.AssignStmt:
			x := s.Target
			for {
				switch e := x.(type) {
				case *syntax.IndexExpr:
					x = e.X
					continue
				case *syntax.SelectorExpr:
					if id, ok := e.X.(*syntax.IdentExpr); ok {
						names[id.Name+"."+e.Field.Name] = true // P.x
					}
					x = e.X
					continue
				case *syntax.IdentExpr:
					names[e.Name] = true
				}
				break
			}
		case *syntax.ChooseStmt:
			stmt(s.Body)
		case *syntax.ForStmt:
			stmt(s.Body)
		case *syntax.IfStmt:
			stmt(s.Then)
			if s.Else != nil {
				stmt(s.Else)
			}
		case *syntax.MatchStmt:
			for _, cs := range s.Cases {
				if cs.Body != nil {
					stmt(cs.Body)
				}
			}
		}
	}
	stmt(b)
}
