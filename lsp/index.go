package lsp

import (
	"context"
	"sort"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// lspKinds gives each kind of entity its kinds in the protocol: of a
// completion item, of a symbol, of a semantic token.
var lspKinds = [...]struct{ completion, symbol, token int }{
	spec.ObjConst:     {completionKindConstant, symbolKindConstant, tokVariable},
	spec.ObjType:      {completionKindClass, symbolKindClass, tokType},
	spec.ObjVar:       {completionKindVariable, symbolKindVariable, tokVariable},
	spec.ObjLocal:     {completionKindVariable, symbolKindVariable, tokVariable},
	spec.ObjFn:        {completionKindFunction, symbolKindFunction, tokFunction},
	spec.ObjAgent:     {completionKindInterface, symbolKindInterface, tokInterface},
	spec.ObjProcess:   {completionKindModule, symbolKindNamespace, tokNamespace},
	spec.ObjMember:    {completionKindEnumMember, symbolKindEnumMem, tokEnumMember},
	spec.ObjParam:     {completionKindVariable, symbolKindVariable, tokParameter},
	spec.ObjIndex:     {completionKindTypeParam, symbolKindTypeParam, tokTypeParameter},
	spec.ObjResult:    {completionKindVariable, symbolKindVariable, tokParameter},
	spec.ObjLet:       {completionKindVariable, symbolKindVariable, tokVariable},
	spec.ObjChoose:    {completionKindVariable, symbolKindVariable, tokVariable},
	spec.ObjQuant:     {completionKindVariable, symbolKindVariable, tokVariable},
	spec.ObjField:     {completionKindField, symbolKindField, tokProperty},
	spec.ObjAction:    {completionKindEvent, symbolKindMethod, tokMethod},
	spec.ObjInvariant: {completionKindProperty, symbolKindBoolean, tokEvent},
	spec.ObjProperty:  {completionKindProperty, symbolKindBoolean, tokEvent},
	spec.ObjBuiltin:   {completionKindFunction, symbolKindFunction, tokFunction},
}

// ref is one occurrence of a name: its declaration or a use.
type ref struct {
	pos  syntax.Position
	name string
	obj  *spec.Object
	decl bool
}

// index is the position → name lookup of one parsed file over what
// spec.Check resolved ([spec.Info]): the language server resolves no name
// itself. It is built once per document version and read-only afterwards.
type index struct {
	info *spec.Info
	refs []ref          // every resolved identifier, in source order
	objs []*spec.Object // every declared entity, in source order
}

// check checks f, recording its names, and returns the model (nil with
// the error when f does not check) and the index of the names Check
// resolved, as far as it got.
func check(ctx context.Context, f *syntax.File) (*index, *spec.Model, error) {
	info := &spec.Info{}
	m, err := spec.Check(f, spec.Options{Info: info, Context: ctx})
	return newIndex(info), m, err
}

func newIndex(info *spec.Info) *index {
	ix := &index{info: info}
	for id, o := range info.Defs {
		ix.refs = append(ix.refs, ref{pos: id.Pos, name: id.Name, obj: o, decl: true})
		ix.objs = append(ix.objs, o)
	}
	for id, o := range info.Uses {
		if o.Kind != spec.ObjBuiltin {
			ix.refs = append(ix.refs, ref{pos: id.Pos, name: id.Name, obj: o})
		}
	}
	sortRefs(ix.refs)
	sort.Slice(ix.objs, func(i, j int) bool { return ix.objs[i].Pos.Before(ix.objs[j].Pos) })
	return ix
}

// at returns the reference whose name covers the spec position p, or nil.
func (ix *index) at(p syntax.Position) *ref {
	i := sort.Search(len(ix.refs), func(i int) bool { return before(p, ix.refs[i].pos) })
	if i == 0 {
		return nil
	}
	r := &ix.refs[i-1]
	if r.pos.Line == p.Line && p.Col <= r.pos.Col+len([]rune(r.name)) {
		return r
	}
	return nil
}

// refsTo returns every reference to o, in source order.
func (ix *index) refsTo(o *spec.Object) []ref {
	var out []ref
	for _, r := range ix.refs {
		if r.obj == o {
			out = append(out, r)
		}
	}
	return out
}

func sortRefs(rs []ref) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].pos.Before(rs[j].pos) })
}

// scopeAt returns the innermost scope at p.
func (ix *index) scopeAt(p syntax.Position) *spec.Scope {
	if ix.info.Global == nil {
		return nil
	}
	if s := ix.info.Global.Innermost(p); s != nil {
		return s
	}
	return ix.info.Global
}

// lookupAt returns the entity that name denotes at p (a let only after
// its statement), or nil.
func (ix *index) lookupAt(p syntax.Position, name string) *spec.Object {
	for s := ix.scopeAt(p); s != nil; s = s.Parent {
		if o := s.Lookup(name); o != nil && visibleAt(o, p) {
			return o
		}
	}
	return nil
}

// visibleAt reports whether o, declared in a scope that holds p, is
// visible at p: a let binding is from its statement on.
func visibleAt(o *spec.Object, p syntax.Position) bool {
	l, ok := o.Decl.(*syntax.LetStmt)
	return !ok || !before(p, l.Pos)
}

// isGlobal reports whether o is declared in the file's global scope.
func (ix *index) isGlobal(o *spec.Object) bool {
	return o.Parent != nil && o.Parent == ix.info.Global
}

// span returns where a local binding (a parameter, family index, result,
// let, choose or quantified variable) is visible; ok is false for other
// entities.
func span(o *spec.Object) (from, to syntax.Position, ok bool) {
	switch o.Kind {
	case spec.ObjParam, spec.ObjIndex, spec.ObjResult, spec.ObjLet, spec.ObjChoose, spec.ObjQuant:
	default:
		return from, to, false
	}
	if o.Parent == nil {
		return from, to, false
	}
	from, to = o.Parent.Pos, o.Parent.End
	if !to.IsValid() {
		to = syntax.Position{Line: 1 << 30}
	}
	if l, ok := o.Decl.(*syntax.LetStmt); ok {
		from = l.Pos
	}
	return from, to, true
}

// before reports whether p comes before q in a file (their file names
// are not compared).
func before(p, q syntax.Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// typeText returns the type of o as its declaration writes it (a
// variable's, parameter's, field's; an fn's or agent's result type), or
// as the checker found it (a let's, a bound variable's, result's); "" when
// it has none.
func typeText(o *spec.Object) string {
	switch d := o.Decl.(type) {
	case *syntax.VarDecl:
		return typeExprText(d.Type)
	case *syntax.Param:
		return typeExprText(d.Type)
	case *syntax.FnDecl:
		return typeExprText(d.Result)
	case *syntax.AgentDecl:
		if o.Kind == spec.ObjAgent {
			return typeExprText(d.Result)
		}
	}
	if o.Type == nil {
		return ""
	}
	return spec.TypeString(o.Type, 0)
}
