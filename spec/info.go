package spec

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// Info is what [Check] records about the names of a file when
// [Options.Info] points to one, as go/types records its types.Info: every
// identifier with the entity it declares or denotes, the scopes, and the
// type of every expression. It is filled as far as checking got, also
// when Check returns errors. Tools (the language server's hover,
// definition, references, rename and completion) read it instead of
// resolving names again. Its zero value is ready to pass to Check; it is
// not safe for concurrent use while Check fills it.
//
// Identifiers are keyed by their *[syntax.Ident]: the Name field of a
// declaration, a field selection's, a call's or an ask's name, an enum
// member, and the identifier [syntax.IdentExpr.Ident] and
// [syntax.NamedType.Ident] return for a name used as a value or a type.
type Info struct {
	// Defs maps each declaring identifier to the entity it declares:
	// constants, types, variables, fns, agents, processes, enum members,
	// record fields, parameters, family indices, let, choose and
	// quantified variables, actions, invariants and properties.
	Defs map[*syntax.Ident]*Object
	// Uses maps each identifier that refers to an entity to it. A
	// parameter of an fn maps to the same Object in every call the body
	// is inlined into.
	Uses map[*syntax.Ident]*Object
	// Types maps each expression checked to its type (the first one
	// found, for an fn body inlined at several calls or an action of a
	// family, whose instances may give a range other bounds).
	Types map[syntax.Expr]*Type
	// Scopes maps the nodes that open a scope (the *syntax.File, a
	// *syntax.ProcessDecl, *syntax.FnDecl, *syntax.AgentDecl,
	// *syntax.Block, *syntax.ChooseStmt or *syntax.QuantExpr) to it.
	Scopes map[any]*Scope
	// Global is the scope of the file's global names; it is also
	// Scopes[f].
	Global *Scope

	fields map[*Field]*Object // record fields, for their selections
	card   *Object            // the builtin card
}

// ObjKind is the kind of a named entity.
type ObjKind uint8

// The kinds of entities.
const (
	ObjConst     ObjKind = iota // const
	ObjType                     // type
	ObjVar                      // global state variable
	ObjLocal                    // process variable
	ObjFn                       // fn
	ObjAgent                    // agent
	ObjProcess                  // process or family of processes
	ObjMember                   // enum member
	ObjParam                    // parameter of an fn or agent
	ObjIndex                    // index of a process family
	ObjResult                   // result, an agent's answer in its assumption
	ObjLet                      // let binding
	ObjChoose                   // variable bound by choose
	ObjQuant                    // variable bound by forall, exists or count, or by for (an extension)
	ObjField                    // record field
	ObjAction                   // action
	ObjInvariant                // invariant
	ObjProperty                 // property
	ObjBuiltin                  // the builtin card
)

var objKindNames = [...]string{
	ObjConst: "const", ObjType: "type", ObjVar: "var", ObjLocal: "var", ObjFn: "fn",
	ObjAgent: "agent", ObjProcess: "process", ObjMember: "enum member", ObjParam: "parameter",
	ObjIndex: "family index", ObjResult: "result", ObjLet: "let", ObjChoose: "choose",
	ObjQuant: "bound variable", ObjField: "field", ObjAction: "action",
	ObjInvariant: "invariant", ObjProperty: "property", ObjBuiltin: "builtin",
}

func (k ObjKind) String() string {
	if int(k) < len(objKindNames) {
		return objKindNames[k]
	}
	return "ObjKind(?)"
}

// Object is a named entity of a spec: a declaration, the agent's result
// of an assumption, or the builtin card.
type Object struct {
	Kind ObjKind
	Name string
	// Pos is the position of the name in its declaration: the agent's
	// name for its result, zero for the builtin.
	Pos Position
	// Type is the entity's type: a constant's, variable's, member's,
	// field's, parameter's, index's or bound variable's, an fn's or
	// agent's result type, a type's own; nil when it has none or it did
	// not check.
	Type *Type
	// Decl is the declaring node: a *syntax.ConstDecl, TypeDecl, VarDecl,
	// FnDecl, AgentDecl, ProcessDecl, ActionDecl, InvariantDecl or
	// PropertyDecl; the *syntax.Param of a parameter, family index or
	// record field; the *syntax.EnumType of a member; the
	// *syntax.LetStmt, ChooseStmt or QuantExpr of a local binding; the
	// *syntax.AgentDecl of result; nil for the builtin.
	Decl any
	// Owner is the namespace the name lives in beside its scope: the
	// *syntax.ProcessDecl of a process variable, family index or
	// action (nil for a top-level action), the *syntax.RecordType of a
	// field; nil otherwise.
	Owner any
	// Parent is the scope that declares the name; nil for fields,
	// actions, invariants, properties and the builtin, which no scope
	// holds.
	Parent *Scope
}

// Scope is a lexical scope: the names it declares, its place in the
// source and its enclosing and inner scopes.
type Scope struct {
	Parent   *Scope
	Children []*Scope
	// Node is the node that opens the scope (see [Info.Scopes]).
	Node any
	// Pos and End bound the scope in the source; a zero End is the end
	// of the file. A quantifier's scope ends with its declaration.
	Pos, End Position
	names    map[string]*Object
}

// Lookup returns the object declared in s (not in its parents) called
// name, or nil.
func (s *Scope) Lookup(name string) *Object { return s.names[name] }

// Names returns the names declared in s, sorted.
func (s *Scope) Names() []string {
	out := make([]string, 0, len(s.names))
	for n := range s.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Contains reports whether p lies within s (comparing lines and
// columns, not file names).
func (s *Scope) Contains(p Position) bool {
	return !lineColBefore(p, s.Pos) && (!s.End.IsValid() || !lineColBefore(s.End, p))
}

func lineColBefore(p, q Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// Innermost returns the innermost scope of s and its children that
// contains p, or nil when s does not.
func (s *Scope) Innermost(p Position) *Scope {
	if !s.Contains(p) {
		return nil
	}
	for _, c := range s.Children {
		if in := c.Innermost(p); in != nil {
			return in
		}
	}
	return s
}

// ObjectOf returns the entity id declares or denotes, or nil.
func (info *Info) ObjectOf(id *syntax.Ident) *Object {
	if o := info.Defs[id]; o != nil {
		return o
	}
	return info.Uses[id]
}

// FieldOf returns the declaration of the record field f, or nil.
func (info *Info) FieldOf(f *Field) *Object { return info.fields[f] }

// init makes info's maps, keeping those already made.
func (info *Info) init() {
	if info.Defs == nil {
		info.Defs = map[*syntax.Ident]*Object{}
	}
	if info.Uses == nil {
		info.Uses = map[*syntax.Ident]*Object{}
	}
	if info.Types == nil {
		info.Types = map[syntax.Expr]*Type{}
	}
	if info.Scopes == nil {
		info.Scopes = map[any]*Scope{}
	}
}

// The checker records into its Info at the points where it declares and
// resolves a name. Each costs one test of c.info when no Info is asked
// for (Check is on the command line's start-up path).

// def records the declaration of o by the identifier id (nil: an
// implicit one) as an entity of kind k declared by decl. A declaration
// checked again (an fn body inlined at each call, an action per family
// instance) gets the same Object.
func (c *checker) def(o *object, id *syntax.Ident, k ObjKind, decl, owner any) {
	if c.info == nil {
		return
	}
	if id != nil {
		if p := c.info.Defs[id]; p != nil {
			o.pub = p
			return
		}
	}
	o.pub = &Object{Kind: k, Name: o.name, Pos: o.pos, Decl: decl, Owner: owner}
	if id != nil {
		c.info.Defs[id] = o.pub
	}
	c.defined = append(c.defined, o)
}

// defName records a name that no scope holds (a record field, an action,
// an invariant or a property).
func (c *checker) defName(id *syntax.Ident, k ObjKind, decl, owner any) *Object {
	if c.info == nil {
		return nil
	}
	if p := c.info.Defs[id]; p != nil {
		return p
	}
	p := &Object{Kind: k, Name: id.Name, Pos: id.Pos, Decl: decl, Owner: owner}
	c.info.Defs[id] = p
	return p
}

// defField records that the record field fd is the entity p.
func (c *checker) defField(p *Object, fd *Field) {
	if c.info == nil {
		return
	}
	if p.Type == nil {
		p.Type = fd.Type
	}
	if c.info.fields == nil {
		c.info.fields = map[*Field]*Object{}
	}
	c.info.fields[fd] = p
}

// use records that id refers to o (nothing when o is nil: an undefined
// name).
func (c *checker) use(id *syntax.Ident, o *object) {
	if c.info != nil && o != nil && o.pub != nil {
		c.info.Uses[id] = o.pub
	}
}

// useObject records that id refers to p.
func (c *checker) useObject(id *syntax.Ident, p *Object) {
	if c.info != nil && p != nil {
		c.info.Uses[id] = p
	}
}

// useField records that id selects the record field f (nothing when f
// is nil: no such field).
func (c *checker) useField(id *syntax.Ident, f *Field) {
	if c.info != nil && f != nil {
		c.useObject(id, c.info.fields[f])
	}
}

// useDecl records that id refers to what the identifier decl declares.
func (c *checker) useDecl(id, decl *syntax.Ident) {
	if c.info != nil {
		c.useObject(id, c.info.Defs[decl])
	}
}

// useBuiltin records that id names the builtin card.
func (c *checker) useBuiltin(id *syntax.Ident) {
	if c.info == nil {
		return
	}
	if c.info.card == nil {
		c.info.card = &Object{Kind: ObjBuiltin, Name: "card"}
	}
	c.info.Uses[id] = c.info.card
}

// lookup resolves the name id in s and records the use.
func (c *checker) lookup(s *scope, id *syntax.Ident) *object {
	o := s.lookup(id.Name)
	c.use(id, o)
	return o
}

// resolveOnly checks es quietly, only to record their names, on a path
// that has reported an error and returns without checking them (a spec
// with an error has no model: the rest of the work is dropped).
func (c *checker) resolveOnly(env *env, es ...syntax.Expr) {
	if c.info == nil {
		return
	}
	c.quiet++
	for _, e := range es {
		if e != nil {
			c.expr(e, env.flat(), nil)
		}
	}
	c.quiet--
}

// openScope records the scope s opened by node, from pos to end (zero:
// the end of the file). The scope of a node checked again is the first
// one.
func (c *checker) openScope(s *scope, node any, pos, end Position) {
	if c.info == nil {
		return
	}
	if p := c.info.Scopes[node]; p != nil {
		s.pub = p
		return
	}
	p := &Scope{Node: node, Pos: pos, End: end, names: map[string]*Object{}}
	for q := s.parent; q != nil; q = q.parent {
		if q.pub != nil {
			p.Parent = q.pub
			q.pub.Children = append(q.pub.Children, p)
			break
		}
	}
	s.pub = p
	c.info.Scopes[node] = p
}

// scopeEnd returns where a scope that starts at p and has no end of its
// own (an fn's, an agent's, a quantifier's) ends: with its declaration
// (a process's "}", or the start of the next declaration).
func (c *checker) scopeEnd(p Position) Position {
	decls := c.file.Decls
	i := sort.Search(len(decls), func(i int) bool { return p.Before(decls[i].Position()) })
	if i > 0 {
		if pd, ok := decls[i-1].(*syntax.ProcessDecl); ok && !pd.End.Before(p) {
			return pd.End
		}
	}
	if i < len(decls) {
		return decls[i].Position()
	}
	return Position{}
}

// exprEnd returns the position just after the last token of e (on
// its line), where the scope of a quantifier over e ends.
func exprEnd(e syntax.Expr) Position {
	after := func(p Position, text string) Position {
		p.Col += utf8.RuneCountInString(text)
		p.Offset += len(text)
		return p
	}
	switch e := e.(type) {
	case *syntax.IdentExpr:
		return after(e.Pos, e.Name)
	case *syntax.IntLit:
		return after(e.Pos, e.Text)
	case *syntax.BoolLit:
		return after(e.Pos, strconv.FormatBool(e.Value))
	case *syntax.UnaryExpr:
		return exprEnd(e.X)
	case *syntax.BinaryExpr:
		return exprEnd(e.Y)
	case *syntax.IndexExpr:
		return after(e.End, "]")
	case *syntax.SelectorExpr:
		return after(e.Field.Pos, e.Field.Name)
	case *syntax.CallExpr:
		return after(e.End, ")")
	case *syntax.AskExpr:
		return after(e.End, ")")
	case *syntax.CondExpr:
		return exprEnd(e.Else)
	case *syntax.QuantExpr:
		return exprEnd(e.Body)
	case *syntax.ArrayLit:
		return after(e.End, "]")
	case *syntax.ArrayComp:
		return after(e.End, "]")
	case *syntax.SetLit:
		return after(e.End, "}")
	case *syntax.RecordLit:
		return after(e.End, "}")
	case *syntax.ParenExpr:
		return after(e.End, ")")
	}
	return Position{}
}

// recordType records the type of the expression e.
func (c *checker) recordType(e syntax.Expr, x *Expr) {
	if x == nil || isInvalid(x.Type) {
		return
	}
	if _, ok := c.info.Types[e]; !ok {
		c.info.Types[e] = x.Type
	}
}

// finishInfo gives the objects recorded the types found since.
func (c *checker) finishInfo() {
	if c.info == nil {
		return
	}
	for _, o := range c.defined {
		p := o.pub
		if p.Type != nil {
			continue
		}
		t := o.typ
		switch {
		case o.fn != nil:
			t = o.fn.result
		case o.agent != nil:
			t = o.agent.result
		case o.proc != nil && o.kind == objProcess:
			t = nil
		}
		if !isInvalid(t) {
			p.Type = t
		}
	}
}
