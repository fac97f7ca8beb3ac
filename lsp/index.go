package lsp

import (
	"sort"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// symKind is the kind of a declared name.
type symKind uint8

const (
	symConst symKind = iota
	symType
	symVar
	symLocal // a process variable
	symFn
	symAgent
	symProcess
	symMember // an enum member
	symParam  // an fn or agent parameter
	symIndex  // a family index
	symResult // `result` in an agent assumption
	symLet
	symChoose
	symQuant
	symField // a record field
	symAction
	symInvariant
	symProperty
)

var symKindNames = [...]string{
	symConst: "const", symType: "type", symVar: "var", symLocal: "var", symFn: "fn",
	symAgent: "agent", symProcess: "process", symMember: "enum member", symParam: "parameter",
	symIndex: "family index", symResult: "result", symLet: "let", symChoose: "choose",
	symQuant: "bound variable", symField: "field", symAction: "action",
	symInvariant: "invariant", symProperty: "property",
}

func (k symKind) String() string { return symKindNames[k] }

// symbol is one declared name.
type symbol struct {
	kind symKind
	name string
	pos  syntax.Position // of the name in its declaration
	// typ is the declared type, when the declaration has one (var,
	// param, field, fn and agent: the result type), or the inferred type
	// of a let (nil when unknown).
	typ  syntax.TypeExpr
	decl any // the declaring node: a syntax.Decl, *syntax.Param, *syntax.LetStmt, ...
	// proc is the process that owns a local, an action or a family index.
	proc *syntax.ProcessDecl
	// enum is the enum type a member belongs to, and enumName the name of
	// the type declaration that declares it ("" when anonymous).
	enum     *syntax.EnumType
	enumName string
	// record is the record type a field belongs to.
	record *syntax.RecordType
	// scope bounds where a local name is visible (zero To: everywhere).
	from, to syntax.Position
}

// ref is one occurrence of a name: its declaration or a use.
type ref struct {
	pos  syntax.Position
	name string
	sym  *symbol
	decl bool
}

// index is the result of resolving the names of one parsed file. It is
// built once per document version and read-only afterwards.
type index struct {
	file    *syntax.File
	syms    []*symbol
	refs    []ref
	globals map[string]*symbol
	procs   map[string]*procInfo
	types   map[syntax.TypeExpr]*symbol // record field and enum lookups
	fields  map[*syntax.RecordType]map[string]*symbol
	unknown []ref // names that resolve to nothing (for completion, no use yet)
}

// procInfo holds the names of one process.
type procInfo struct {
	decl    *syntax.ProcessDecl
	sym     *symbol
	locals  map[string]*symbol
	actions map[string]*symbol
}

// scope is a chain of local name tables.
type scope struct {
	names  map[string]*symbol
	parent *scope
}

func (s *scope) lookup(name string) *symbol {
	for ; s != nil; s = s.parent {
		if o, ok := s.names[name]; ok {
			return o
		}
	}
	return nil
}

func (s *scope) child() *scope { return &scope{names: map[string]*symbol{}, parent: s} }

// maxTypeDepth bounds the expansion of named types, so that a cyclic
// type declaration in a half-typed file cannot loop.
const maxTypeDepth = 32

// newIndex resolves the names of f. It never fails: a name that resolves
// to nothing is left out of the references.
func newIndex(f *syntax.File) *index {
	ix := &index{
		file:    f,
		globals: map[string]*symbol{},
		procs:   map[string]*procInfo{},
		fields:  map[*syntax.RecordType]map[string]*symbol{},
	}
	ix.collect()
	ix.resolve()
	return ix
}

func (ix *index) declare(s *symbol) *symbol {
	ix.syms = append(ix.syms, s)
	ix.refs = append(ix.refs, ref{pos: s.pos, name: s.name, sym: s, decl: true})
	return s
}

func (ix *index) global(s *symbol) {
	ix.declare(s)
	if _, dup := ix.globals[s.name]; !dup {
		ix.globals[s.name] = s
	}
}

// declEnd returns where the scope of declaration i ends: at the next
// declaration, or nowhere for the last one.
func (ix *index) declEnd(i int) syntax.Position {
	if i+1 < len(ix.file.Decls) {
		return ix.file.Decls[i+1].Position()
	}
	return syntax.Position{Line: 1 << 30}
}

// collect declares every global name, every process local and action,
// and every enum member and record field of the type expressions in
// declarations.
func (ix *index) collect() {
	for _, d := range ix.file.Decls {
		switch d := d.(type) {
		case *syntax.ConstDecl:
			ix.global(&symbol{kind: symConst, name: d.Name.Name, pos: d.Name.Pos, decl: d})
		case *syntax.TypeDecl:
			ix.global(&symbol{kind: symType, name: d.Name.Name, pos: d.Name.Pos, decl: d, typ: d.Type})
			ix.typeMembers(d.Type, d.Name.Name)
		case *syntax.VarDecl:
			ix.global(&symbol{kind: symVar, name: d.Name.Name, pos: d.Name.Pos, decl: d, typ: d.Type})
			ix.typeMembers(d.Type, "")
		case *syntax.FnDecl:
			ix.global(&symbol{kind: symFn, name: d.Name.Name, pos: d.Name.Pos, decl: d, typ: d.Result})
			for _, p := range d.Params {
				ix.typeMembers(p.Type, "")
			}
			ix.typeMembers(d.Result, "")
		case *syntax.AgentDecl:
			ix.global(&symbol{kind: symAgent, name: d.Name.Name, pos: d.Name.Pos, decl: d, typ: d.Result})
			for _, p := range d.Params {
				ix.typeMembers(p.Type, "")
			}
			ix.typeMembers(d.Result, "")
		case *syntax.ProcessDecl:
			ps := &symbol{kind: symProcess, name: d.Name.Name, pos: d.Name.Pos, decl: d, proc: d}
			ix.global(ps)
			pi := &procInfo{decl: d, sym: ps, locals: map[string]*symbol{}, actions: map[string]*symbol{}}
			if _, dup := ix.procs[d.Name.Name]; !dup {
				ix.procs[d.Name.Name] = pi
			}
			if d.Index != nil {
				ix.typeMembers(d.Index.Type, "")
			}
			for _, v := range d.Vars {
				s := ix.declare(&symbol{kind: symLocal, name: v.Name.Name, pos: v.Name.Pos, decl: v, typ: v.Type, proc: d})
				if _, dup := pi.locals[s.name]; !dup {
					pi.locals[s.name] = s
				}
				ix.typeMembers(v.Type, "")
			}
			for _, a := range d.Actions {
				s := ix.declare(&symbol{kind: symAction, name: a.Name.Name, pos: a.Name.Pos, decl: a, proc: d})
				if _, dup := pi.actions[s.name]; !dup {
					pi.actions[s.name] = s
				}
			}
		case *syntax.ActionDecl:
			ix.declare(&symbol{kind: symAction, name: d.Name.Name, pos: d.Name.Pos, decl: d})
		case *syntax.InvariantDecl:
			ix.declare(&symbol{kind: symInvariant, name: d.Name.Name, pos: d.Name.Pos, decl: d})
		case *syntax.PropertyDecl:
			ix.declare(&symbol{kind: symProperty, name: d.Name.Name, pos: d.Name.Pos, decl: d})
		}
	}
}

// typeMembers declares the enum members and record fields that appear in
// the type expression t; typeName names the declaration when t is the
// whole right-hand side of a type declaration.
func (ix *index) typeMembers(t syntax.TypeExpr, typeName string) {
	switch t := t.(type) {
	case *syntax.EnumType:
		for _, m := range t.Members {
			ix.global(&symbol{kind: symMember, name: m.Name, pos: m.Pos, decl: t, enum: t, enumName: typeName})
		}
	case *syntax.ArrayType:
		ix.typeMembers(t.Index, "")
		ix.typeMembers(t.Elem, "")
	case *syntax.SetType:
		ix.typeMembers(t.Elem, "")
	case *syntax.RecordType:
		fs := map[string]*symbol{}
		ix.fields[t] = fs
		for _, f := range t.Fields {
			s := ix.declare(&symbol{kind: symField, name: f.Name.Name, pos: f.Name.Pos, decl: f, typ: f.Type, record: t})
			if _, dup := fs[s.name]; !dup {
				fs[s.name] = s
			}
			ix.typeMembers(f.Type, "")
		}
	}
}

// use records a use of name at pos resolved to s (nil: unresolved).
func (ix *index) use(pos syntax.Position, name string, s *symbol) {
	if s == nil {
		ix.unknown = append(ix.unknown, ref{pos: pos, name: name})
		return
	}
	ix.refs = append(ix.refs, ref{pos: pos, name: name, sym: s})
}

// resolver walks the declarations with a scope chain.
type resolver struct {
	ix   *index
	proc *procInfo // the enclosing process, nil at top level
	end  syntax.Position
}

func (ix *index) resolve() {
	top := &scope{names: ix.globals}
	for i, d := range ix.file.Decls {
		r := &resolver{ix: ix, end: ix.declEnd(i)}
		switch d := d.(type) {
		case *syntax.ConstDecl:
			r.expr(top, d.Value)
		case *syntax.TypeDecl:
			r.typ(top, d.Type)
		case *syntax.VarDecl:
			r.typ(top, d.Type)
			r.expr(top, d.Init)
		case *syntax.FnDecl:
			sc := top.child()
			for _, p := range d.Params {
				r.typ(top, p.Type)
				r.bind(sc, &symbol{kind: symParam, name: p.Name.Name, pos: p.Name.Pos, decl: p, typ: p.Type, from: d.Pos, to: r.end})
			}
			r.typ(top, d.Result)
			r.expr(sc, d.Body)
		case *syntax.AgentDecl:
			sc := top.child()
			for _, p := range d.Params {
				r.typ(top, p.Type)
				r.bind(sc, &symbol{kind: symParam, name: p.Name.Name, pos: p.Name.Pos, decl: p, typ: p.Type, from: d.Pos, to: r.end})
			}
			r.typ(top, d.Result)
			sc.names["result"] = &symbol{kind: symResult, name: "result", pos: d.Name.Pos, decl: d, typ: d.Result, from: d.Pos, to: r.end}
			r.expr(sc, d.Assume)
		case *syntax.ProcessDecl:
			r.proc = ix.procs[d.Name.Name]
			if r.proc != nil && r.proc.decl != d {
				r.proc = nil
			}
			r.end = d.End
			sc := top.child()
			if d.Index != nil {
				r.typ(top, d.Index.Type)
				r.bind(sc, &symbol{kind: symIndex, name: d.Index.Name.Name, pos: d.Index.Name.Pos, decl: d.Index, typ: d.Index.Type, proc: d, from: d.Pos, to: d.End})
			}
			if r.proc != nil {
				for name, s := range r.proc.locals {
					sc.names[name] = s
				}
			}
			for _, v := range d.Vars {
				r.typ(top, v.Type)
				r.expr(sc, v.Init)
			}
			for _, a := range d.Actions {
				r.action(sc, a)
			}
		case *syntax.ActionDecl:
			r.action(top, d)
		case *syntax.InitDecl:
			r.block(top, d.Body)
		case *syntax.InvariantDecl:
			r.expr(top, d.Expr)
		case *syntax.PropertyDecl:
			r.expr(top, d.Formula)
		case *syntax.TerminalDecl:
			r.expr(top, d.Expr)
		case *syntax.FairnessDecl:
			pi := ix.procs[d.Process.Name]
			var ps *symbol
			if pi != nil {
				ps = pi.sym
			}
			r.ix.use(d.Process.Pos, d.Process.Name, ps)
			if d.Action != nil {
				var as *symbol
				if pi != nil {
					as = pi.actions[d.Action.Name]
				}
				r.ix.use(d.Action.Pos, d.Action.Name, as)
			}
		}
	}
}

// bind declares a local symbol in sc.
func (r *resolver) bind(sc *scope, s *symbol) {
	r.ix.declare(s)
	sc.names[s.name] = s
}

func (r *resolver) action(sc *scope, a *syntax.ActionDecl) {
	r.expr(sc, a.Guard)
	r.block(sc, a.Body)
}

func (r *resolver) block(sc *scope, b *syntax.Block) {
	if b == nil {
		return
	}
	inner := sc.child()
	for _, s := range b.Stmts {
		r.stmt(inner, s, b.End)
	}
}

func (r *resolver) stmt(sc *scope, s syntax.Stmt, blockEnd syntax.Position) {
	switch s := s.(type) {
	case *syntax.Block:
		r.block(sc, s)
	case *syntax.AssignStmt:
		r.expr(sc, s.Target)
		r.expr(sc, s.Value)
	case *syntax.LetStmt:
		r.expr(sc, s.Value)
		r.bind(sc, &symbol{kind: symLet, name: s.Name.Name, pos: s.Name.Pos, decl: s, typ: r.ix.typeOf(sc, s.Value), from: s.Pos, to: blockEnd})
	case *syntax.ChooseStmt:
		r.typ(sc, s.Domain)
		inner := sc.child()
		to := blockEnd
		if s.Body != nil {
			to = s.Body.End
		}
		r.bind(inner, &symbol{kind: symChoose, name: s.Var.Name, pos: s.Var.Pos, decl: s, typ: r.ix.domainElem(sc, s.Domain), from: s.Pos, to: to})
		r.expr(inner, s.Where)
		r.block(inner, s.Body)
	case *syntax.IfStmt:
		r.expr(sc, s.Cond)
		r.block(sc, s.Then)
		if s.Else != nil {
			r.stmt(sc, s.Else, blockEnd)
		}
	case *syntax.MatchStmt:
		r.expr(sc, s.X)
		for _, c := range s.Cases {
			for _, v := range c.Values {
				r.expr(sc, v)
			}
			if c.Body != nil {
				r.stmt(sc.child(), c.Body, blockEnd)
			}
		}
	case *syntax.AssertStmt:
		r.expr(sc, s.Cond)
	}
}

func (r *resolver) typ(sc *scope, t syntax.TypeExpr) {
	switch t := t.(type) {
	case *syntax.NamedType:
		r.ix.use(t.Pos, t.Name, sc.lookup(t.Name))
	case *syntax.RangeType:
		r.expr(sc, t.Lo)
		r.expr(sc, t.Hi)
	case *syntax.SymmetricType:
		r.expr(sc, t.N)
	case *syntax.ArrayType:
		r.typ(sc, t.Index)
		r.typ(sc, t.Elem)
	case *syntax.RecordType:
		for _, f := range t.Fields {
			r.typ(sc, f.Type)
		}
	case *syntax.SetType:
		r.typ(sc, t.Elem)
	}
}

func (r *resolver) expr(sc *scope, e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.IdentExpr:
		r.ix.use(e.Pos, e.Name, sc.lookup(e.Name))
	case *syntax.UnaryExpr:
		r.expr(sc, e.X)
	case *syntax.BinaryExpr:
		r.expr(sc, e.X)
		r.expr(sc, e.Y)
	case *syntax.IndexExpr:
		r.expr(sc, e.X)
		r.expr(sc, e.Index)
	case *syntax.SelectorExpr:
		r.expr(sc, e.X)
		r.ix.use(e.Field.Pos, e.Field.Name, r.ix.member(sc, e.X, e.Field.Name))
	case *syntax.CallExpr:
		if e.Fn.Name != "card" || sc.lookup("card") != nil {
			r.ix.use(e.Fn.Pos, e.Fn.Name, sc.lookup(e.Fn.Name))
		}
		for _, a := range e.Args {
			r.expr(sc, a)
		}
	case *syntax.AskExpr:
		r.ix.use(e.Agent.Pos, e.Agent.Name, sc.lookup(e.Agent.Name))
		for _, a := range e.Args {
			r.expr(sc, a)
		}
	case *syntax.CondExpr:
		r.expr(sc, e.Cond)
		r.expr(sc, e.Then)
		r.expr(sc, e.Else)
	case *syntax.QuantExpr:
		r.typ(sc, e.Domain)
		inner := sc.child()
		r.bind(inner, &symbol{kind: symQuant, name: e.Var.Name, pos: e.Var.Pos, decl: e, typ: r.ix.domainElem(sc, e.Domain), from: e.Pos, to: r.end})
		r.expr(inner, e.Body)
	case *syntax.SetLit:
		for _, x := range e.Elems {
			r.expr(sc, x)
		}
	case *syntax.RecordLit:
		for _, f := range e.Fields {
			r.expr(sc, f.Value)
		}
	case *syntax.ParenExpr:
		r.expr(sc, e.X)
	}
}

// member resolves the field name of x.name: a process local when x names
// a process (P.x or P[v].x), else a field of x's record type.
func (ix *index) member(sc *scope, x syntax.Expr, name string) *symbol {
	if pi := ix.processOf(sc, x); pi != nil {
		return pi.locals[name]
	}
	if rt, ok := ix.underlying(ix.typeOf(sc, x)).(*syntax.RecordType); ok {
		return ix.fields[rt][name]
	}
	return nil
}

// processOf returns the process that x names (P, or P[v] for a family),
// or nil.
func (ix *index) processOf(sc *scope, x syntax.Expr) *procInfo {
	if ie, ok := x.(*syntax.IndexExpr); ok {
		x = ie.X
	}
	id, ok := x.(*syntax.IdentExpr)
	if !ok {
		return nil
	}
	if s := sc.lookup(id.Name); s != nil && s.kind == symProcess {
		return ix.procs[id.Name]
	}
	return nil
}

// typeOf returns the type of e as written in the source, when the
// declarations make it evident (names, indexing, fields, calls and asks);
// nil otherwise.
func (ix *index) typeOf(sc *scope, e syntax.Expr) syntax.TypeExpr {
	switch e := e.(type) {
	case *syntax.IdentExpr:
		if s := sc.lookup(e.Name); s != nil {
			switch s.kind {
			case symMember:
				if s.enumName != "" {
					return &syntax.NamedType{Pos: s.pos, Name: s.enumName}
				}
				return s.enum
			case symFn, symAgent:
				return nil
			}
			return s.typ
		}
	case *syntax.BoolLit:
		return &syntax.BoolType{Pos: e.Pos}
	case *syntax.IndexExpr:
		if at, ok := ix.underlying(ix.typeOf(sc, e.X)).(*syntax.ArrayType); ok {
			return at.Elem
		}
	case *syntax.SelectorExpr:
		if s := ix.member(sc, e.X, e.Field.Name); s != nil {
			return s.typ
		}
	case *syntax.CallExpr:
		if s := sc.lookup(e.Fn.Name); s != nil && s.kind == symFn {
			return s.typ
		}
	case *syntax.AskExpr:
		if s := sc.lookup(e.Agent.Name); s != nil && s.kind == symAgent {
			return s.typ
		}
	case *syntax.ParenExpr:
		return ix.typeOf(sc, e.X)
	case *syntax.CondExpr:
		return ix.typeOf(sc, e.Then)
	}
	return nil
}

// domainElem returns the element type of a choose or quantifier domain:
// the type itself, or the element type of a set-valued name.
func (ix *index) domainElem(sc *scope, t syntax.TypeExpr) syntax.TypeExpr {
	nt, ok := t.(*syntax.NamedType)
	if !ok {
		return t
	}
	s := sc.lookup(nt.Name)
	if s == nil || s.kind == symType {
		return t
	}
	if st, ok := ix.underlying(s.typ).(*syntax.SetType); ok {
		return st.Elem
	}
	return nil
}

// underlying expands named types to the type expression they stand for.
func (ix *index) underlying(t syntax.TypeExpr) syntax.TypeExpr {
	for i := 0; i < maxTypeDepth; i++ {
		nt, ok := t.(*syntax.NamedType)
		if !ok {
			return t
		}
		s := ix.globals[nt.Name]
		if s == nil || s.kind != symType {
			return nil
		}
		t = s.typ
	}
	return nil
}

// at returns the reference whose name covers the spec position p, or nil.
func (ix *index) at(p syntax.Position) *ref {
	for i := range ix.refs {
		r := &ix.refs[i]
		if r.pos.Line == p.Line && p.Col >= r.pos.Col && p.Col <= r.pos.Col+len([]rune(r.name)) {
			return r
		}
	}
	return nil
}

// refsTo returns every reference to s, in source order.
func (ix *index) refsTo(s *symbol) []ref {
	var out []ref
	for _, r := range ix.refs {
		if r.sym == s {
			out = append(out, r)
		}
	}
	sortRefs(out)
	return out
}

func sortRefs(rs []ref) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].pos.Before(rs[j].pos) })
}
