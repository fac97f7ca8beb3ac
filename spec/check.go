package spec

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strconv"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// ErrUnknownDefine is wrapped by the error [Check] returns when
// [Options.Defines] names something that is not a constant of the spec.
// It is a usage error, not a spec error: it is not an [ErrorList].
var ErrUnknownDefine = errors.New("no such constant in the spec")

// Options configures [Check]. Its zero value is the default.
type Options struct {
	// Defines overrides constants by name (wrapcheck check -D N=4). The
	// override is applied before any range bound or symmetric size is
	// computed.
	Defines map[string]int64
	// BigDefines overrides constants with values that do not fit an
	// int64 (integers are exact); a name may not be in both maps.
	BigDefines map[string]*big.Int
	// Context, when not nil, bounds the work of [Check]: once it is done
	// (a deadline, a signal, a cancelled request), Check stops soon after
	// and returns an error wrapping ctx.Err(). It covers constant folding
	// and the expansion of fn bodies, whose cost a spec controls.
	Context context.Context
	// Watches are expressions over the state (check --watch, wrapcheck
	// eval), checked in the spec's global scope as an invariant is, of
	// any type, and lowered into [Model.Watches] in the same order. They
	// may not use temporal or past-time operators: a watch reads one
	// state. Their errors are reported with the spec's.
	Watches []syntax.Expr
	// Info, when not nil, is filled with the names of the file: what
	// each identifier declares or refers to, the scopes and the types
	// of expressions (see [Info]), also when Check reports errors.
	Info *Info
	// valueSeq lowers every sequence assignment as the value it stores
	// (no in-place append or tail: seqUpdate), for the test that holds
	// the two lowerings to the same results.
	valueSeq bool
}

// Check resolves, type checks and lowers a parsed spec. On a spec error it
// returns a nil *Model and an [ErrorList] (sorted, one error per line); an
// unknown name in opts.Defines gives an error wrapping [ErrUnknownDefine].
// Check never panics on any input.
func Check(f *syntax.File, opts Options) (m *Model, err error) {
	if f == nil {
		return nil, errors.New("spec: nil file")
	}
	if opts.Context != nil {
		if err := opts.Context.Err(); err != nil {
			return nil, err
		}
	}
	c := newChecker(f, opts)
	defer c.finishInfo()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); ok {
				m, err = nil, c.errs.Err()
				return
			}
			if s, ok := r.(stopped); ok {
				m, err = nil, fmt.Errorf("%s: checking stopped: %w", f.Filename, s.err)
				return
			}
			// a checker bug: report it instead of crashing the caller
			m, err = nil, fmt.Errorf("wrapcheck internal error: %v", r)
		}
	}()
	if err := c.run(); err != nil {
		return nil, err
	}
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	if msg := wellTyped(c.model); msg != "" {
		return nil, fmt.Errorf("wrapcheck internal error: %s", msg)
	}
	return c.model, nil
}

// bailout is panicked (and recovered by Check) when too many errors were
// reported to continue usefully.
type bailout struct{}

// stopped is panicked (and recovered by Check) when Options.Context is
// done; err is the context's error.
type stopped struct{ err error }

// pollSteps is the number of expressions and statements checked between
// two looks at Options.Context: a few microseconds of work.
const pollSteps = 1 << 10

// step counts one expression or statement checked, and stops Check
// (panicking stopped) once Options.Context is done. Every phase of Check
// that the spec can make long (constant folding, the expansion of fn
// bodies, of process families, the lowering of each unit) checks
// expressions or statements, so none runs long without a look.
func (c *checker) step() {
	if c.steps++; c.steps%pollSteps != 0 || c.opts.Context == nil {
		return
	}
	if err := c.opts.Context.Err(); err != nil {
		panic(stopped{err})
	}
}

// objKind is the kind of a named entity.
type objKind uint8

const (
	objConst    objKind = iota // const decl
	objMember                  // enum member
	objType                    // type decl
	objVar                     // global state variable
	objLocalVar                // process local variable
	objFn                      // fn
	objAgent                   // agent
	objProcess                 // process or family
	objLet                     // let binding: a frame slot, assignable
	objBound                   // quantified/chosen var, parameter, result: a frame slot
	objIndex                   // family index: a constant per instance
	objConstArg                // fn parameter bound to a constant argument when inlining
)

// object is a named entity of the spec.
type object struct {
	kind  objKind
	name  string
	pos   Position
	typ   *Type
	val   int64    // objConst, objMember, objConstArg: the value (saturated when big is set)
	big   *big.Int // objConst, objConstArg: the exact value when it does not fit an int64
	state uint8    // objConst, objType: 0 unresolved, 1 resolving, 2 done
	what  string
	used  bool
	dep   bool // objConstArg: the value depends on a family index
	// amb holds, for a member name that two or more enum types declare,
	// their members in declaration order; the global name is then this
	// object, whose bare use is an error (Type.member names one).
	amb []*object

	cdecl *syntax.ConstDecl
	tdecl *syntax.TypeDecl
	vdecl *syntax.VarDecl
	fn    *fnInfo
	agent *agentInfo
	proc  *procInfo

	slot int // objVar, objLocalVar (instance 0): state slot; objLet, objBound: frame slot

	pub *Object // the entity recorded in Options.Info, nil without one
}

// scope is a lexical scope.
type scope struct {
	parent *scope
	names  map[string]*object
	pub    *Scope // the scope recorded in Options.Info, nil without one
}

func newScope(parent *scope) *scope { return &scope{parent: parent, names: map[string]*object{}} }

func (s *scope) lookup(name string) *object {
	for ; s != nil; s = s.parent {
		if o, ok := s.names[name]; ok {
			return o
		}
	}
	return nil
}

// fnInfo is a checked fn.
type fnInfo struct {
	decl    *syntax.FnDecl
	params  []*Type
	result  *Type
	bad     bool // its declaration has an error, or it is recursive
	checked bool
	obj     *object
	// readsState names the first state variable the body reads (directly
	// or through another fn), "" if none: such an fn may not be called
	// where state is invisible (constants, agent assumptions).
	readsState string
}

// agentInfo is a checked agent.
type agentInfo struct {
	decl   *syntax.AgentDecl
	index  int
	obj    *object
	asked  bool
	params []*Type
	result *Type
}

// procInfo is a process or a family of processes.
type procInfo struct {
	decl     *syntax.ProcessDecl // nil for main
	name     string
	pos      Position
	idxType  *Type // nil for a single process
	n        int   // number of instances
	scope    *scope
	locals   []*object
	actions  []*syntax.ActionDecl
	first    int   // index of instance 0 in Model.Processes
	irActs   []int // per instance*len(actions)+action: index into Model.Actions
	obj      *object
	declared int // order key
}

// checker holds the state of one Check call.
type checker struct {
	file  *syntax.File
	opts  Options
	errs  syntax.ErrorList
	quiet int
	model *Model

	forBodies  int      // loop bodies unrolled so far (see MaxForBodies)
	lastSeq    *seqCall // the append or tail call lowered last (seqUpdate)
	forTooMany bool     // a for loop passed MaxForBodies, not yet reported

	tBool, tInt, tInvalid *Type

	global    *scope
	enums     map[*syntax.EnumType]*Type
	members   map[*Type][]*object // each enum type's members, in order (Type.member)
	syms      map[*syntax.SymmetricType]*Type
	instDep   map[*Expr]bool
	fns       []*fnInfo
	agents    []*agentInfo
	procs     []*procInfo // in Model.Processes order
	main      *procInfo
	consts    []*object
	types     []*object
	vars      []*object
	inits     []*syntax.InitDecl
	invs      []*syntax.InvariantDecl
	props     []*syntax.PropertyDecl
	fairs     []*syntax.FairnessDecl
	terms     []*syntax.TerminalDecl
	inlineDep int
	exprDepth int  // nesting of expr calls, bounded by syntax.MaxExprHeight
	inlined   int  // fn calls inlined so far
	expanded  int  // operators of inlined fn bodies checked so far (maxExpanded)
	steps     int  // expressions and statements checked so far (step)
	lastDep   bool // the last constInt depended on a family index
	// expandReported is set once the error of maxExpanded is reported.
	expandReported bool
	// dupNames are global names declared twice: their uses are invalid
	// without further errors (the redeclaration was reported).
	dupNames map[string]bool

	frameTop, frameMax int

	past    []*pastInfo // past-time subformulas, in the order lowered
	pastUse map[*Expr]*pastInfo

	vet *vetInfo

	info    *Info     // Options.Info
	defined []*object // the objects recorded in info, for finishInfo
}

func newChecker(f *syntax.File, opts Options) *checker {
	c := &checker{
		file:     f,
		opts:     opts,
		global:   newScope(nil),
		pastUse:  map[*Expr]*pastInfo{},
		enums:    map[*syntax.EnumType]*Type{},
		members:  map[*Type][]*object{},
		syms:     map[*syntax.SymmetricType]*Type{},
		instDep:  map[*Expr]bool{},
		dupNames: map[string]bool{},
		vet:      &vetInfo{},
	}
	c.tBool = &Type{Kind: BoolKind, Name: "bool", Lo: 0, Hi: 1, Width: 1}
	c.tInt = &Type{Kind: IntKind, Name: "int", Width: 1}
	c.tInvalid = &Type{Kind: InvalidKind, Width: 1}
	c.model = &Model{Name: f.Name, Filename: f.Filename, NamePos: f.NamePos, vet: c.vet}
	if opts.Info != nil {
		c.info = opts.Info
		c.info.init()
		c.openScope(c.global, f, Position{}, Position{})
		c.info.Global = c.global.pub
	}
	return c
}

// errorf reports an error at pos, unless errors are muted.
func (c *checker) errorf(pos Position, format string, args ...any) {
	c.errorNotes(pos, nil, format, args...)
}

func (c *checker) errorNotes(pos Position, notes []syntax.Note, format string, args ...any) {
	if c.quiet > 0 {
		return
	}
	msg := fmt.Sprintf(format, args...)
	for _, e := range c.errs {
		if e.Pos == pos && e.Msg == msg {
			return
		}
	}
	c.errs.Add(pos, msg, notes...)
	if len(c.errs) > 10*syntax.MaxErrors {
		panic(bailout{})
	}
}

func note(pos Position, format string, args ...any) syntax.Note {
	return syntax.Note{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// declare adds o to s, reporting a duplicate.
func (c *checker) declare(s *scope, o *object) {
	if o.name == "" || o.name == "_" {
		return
	}
	if s.pub != nil && o.pub != nil {
		if o.pub.Parent == nil {
			o.pub.Parent = s.pub
		}
		if _, ok := s.pub.names[o.name]; !ok {
			s.pub.names[o.name] = o.pub
		}
	}
	if prev, ok := s.names[o.name]; ok {
		if s == c.global {
			c.dupNames[o.name] = true
		}
		c.errorNotes(o.pos, []syntax.Note{note(prev.pos, "%s declared here", o.name)},
			"%s redeclared in this scope", o.name)
		return
	}
	s.names[o.name] = o
}

// run is the whole check: collect, resolve, lower.
func (c *checker) run() error {
	c.collect()
	// -D overrides: a usage error, reported before anything else.
	names := make([]string, 0, len(c.opts.Defines)+len(c.opts.BigDefines))
	for n := range c.opts.Defines {
		names = append(names, n)
	}
	for n := range c.opts.BigDefines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		o := c.global.names[n]
		if o == nil || o.kind != objConst {
			if s := c.suggestKind(n, objConst); s != "" {
				return fmt.Errorf("-D %s: %w (did you mean %s?)", n, ErrUnknownDefine, s)
			}
			return fmt.Errorf("-D %s: %w", n, ErrUnknownDefine)
		}
	}
	c.resolveDecls()
	c.lowerAll()
	return nil
}

// collect declares every global name and gathers the declarations.
func (c *checker) collect() {
	var topActions []*syntax.ActionDecl
	order := 0
	for _, d := range c.file.Decls {
		switch d := d.(type) {
		case *syntax.ConstDecl:
			o := &object{kind: objConst, name: d.Name.Name, pos: d.Name.Pos, cdecl: d}
			c.def(o, &d.Name, ObjConst, d, nil)
			c.declare(c.global, o)
			c.consts = append(c.consts, o)
		case *syntax.TypeDecl:
			o := &object{kind: objType, name: d.Name.Name, pos: d.Name.Pos, tdecl: d}
			c.def(o, &d.Name, ObjType, d, nil)
			c.declare(c.global, o)
			c.types = append(c.types, o)
			c.collectEnums(d.Type)
		case *syntax.VarDecl:
			o := &object{kind: objVar, name: d.Name.Name, pos: d.Name.Pos, vdecl: d}
			c.def(o, &d.Name, ObjVar, d, nil)
			c.declare(c.global, o)
			c.vars = append(c.vars, o)
			c.collectEnums(d.Type)
		case *syntax.FnDecl:
			fi := &fnInfo{decl: d}
			o := &object{kind: objFn, name: d.Name.Name, pos: d.Name.Pos, fn: fi}
			fi.obj = o
			c.def(o, &d.Name, ObjFn, d, nil)
			c.declare(c.global, o)
			c.fns = append(c.fns, fi)
			for _, p := range d.Params {
				c.collectEnums(p.Type)
			}
			c.collectEnums(d.Result)
		case *syntax.AgentDecl:
			ai := &agentInfo{decl: d, index: len(c.agents)}
			o := &object{kind: objAgent, name: d.Name.Name, pos: d.Name.Pos, agent: ai}
			ai.obj = o
			c.def(o, &d.Name, ObjAgent, d, nil)
			c.declare(c.global, o)
			c.agents = append(c.agents, ai)
			for _, p := range d.Params {
				c.collectEnums(p.Type)
			}
			c.collectEnums(d.Result)
		case *syntax.ProcessDecl:
			order++
			p := &procInfo{decl: d, name: d.Name.Name, pos: d.Name.Pos, scope: newScope(c.global), actions: d.Actions, declared: order}
			o := &object{kind: objProcess, name: d.Name.Name, pos: d.Name.Pos, proc: p}
			p.obj = o
			c.def(o, &d.Name, ObjProcess, d, nil)
			c.declare(c.global, o)
			c.openScope(p.scope, d, d.Pos, d.End)
			c.procs = append(c.procs, p)
			if d.Index != nil {
				c.collectEnums(d.Index.Type)
			}
			for _, v := range d.Vars {
				c.collectEnums(v.Type)
				lo := &object{kind: objLocalVar, name: v.Name.Name, pos: v.Name.Pos, vdecl: v, proc: p}
				c.def(lo, &v.Name, ObjLocal, v, d)
				c.declare(p.scope, lo)
				p.locals = append(p.locals, lo)
			}
			c.checkActionNames(p.name, d.Actions, d)
		case *syntax.ActionDecl:
			if c.main == nil {
				order++
				c.main = &procInfo{name: "main", pos: d.Pos, scope: newScope(c.global), declared: order}
				c.main.obj = &object{kind: objProcess, name: "main", pos: d.Pos, proc: c.main}
				c.def(c.main.obj, nil, ObjProcess, nil, nil)
				c.procs = append(c.procs, c.main)
			}
			topActions = append(topActions, d)
		case *syntax.InitDecl:
			c.inits = append(c.inits, d)
		case *syntax.InvariantDecl:
			c.invs = append(c.invs, d)
		case *syntax.PropertyDecl:
			c.props = append(c.props, d)
		case *syntax.FairnessDecl:
			c.fairs = append(c.fairs, d)
		case *syntax.TerminalDecl:
			c.terms = append(c.terms, d)
		}
	}
	if c.main != nil {
		c.main.actions = topActions
		c.checkActionNames("main", topActions, nil)
		if o := c.global.names["main"]; o != nil && o.kind == objProcess {
			c.errorf(o.pos, "process main conflicts with the implicit process main of the top-level actions")
		}
	}
	// invariant and property names share one namespace
	seen := map[string]Position{}
	check := func(id *syntax.Ident, k ObjKind, decl any) {
		c.defName(id, k, decl, nil)
		if prev, ok := seen[id.Name]; ok {
			c.errorNotes(id.Pos, []syntax.Note{note(prev, "%s declared here", id.Name)}, "%s redeclared: invariant and property names must be unique", id.Name)
			return
		}
		seen[id.Name] = id.Pos
	}
	for _, d := range c.invs {
		check(&d.Name, ObjInvariant, d)
	}
	for _, d := range c.props {
		check(&d.Name, ObjProperty, d)
	}
}

// checkActionNames reports actions of one process (owner: its
// declaration, nil for main) declared twice.
func (c *checker) checkActionNames(proc string, acts []*syntax.ActionDecl, owner any) {
	seen := map[string]Position{}
	for _, a := range acts {
		c.defName(&a.Name, ObjAction, a, owner)
		if prev, ok := seen[a.Name.Name]; ok {
			c.errorNotes(a.Name.Pos, []syntax.Note{note(prev, "%s declared here", a.Name.Name)},
				"action %s redeclared in process %s", a.Name.Name, proc)
			continue
		}
		seen[a.Name.Name] = a.Name.Pos
	}
}

// collectEnums creates the type of every enum written inside te and
// declares its members as global constants.
func (c *checker) collectEnums(te syntax.TypeExpr) {
	switch t := te.(type) {
	case *syntax.EnumType:
		if _, ok := c.enums[t]; ok {
			return
		}
		et := &Type{Kind: EnumKind, Lo: 0, Hi: int64(len(t.Members)) - 1, Width: 1}
		c.enums[t] = et
		for i, m := range t.Members {
			et.Names = append(et.Names, m.Name)
			o := &object{kind: objMember, name: m.Name, pos: m.Pos, typ: et, val: int64(i)}
			c.def(o, &t.Members[i], ObjMember, t, nil)
			c.members[et] = append(c.members[et], o)
			if c.info != nil && o.pub != nil {
				if c.info.members == nil {
					c.info.members = map[*Type][]*Object{}
				}
				c.info.members[et] = append(c.info.members[et], o.pub)
			}
			if prev := c.global.names[m.Name]; prev != nil && prev.kind == objMember && !prev.memberOf(et) {
				// another enum's member of the same name: both stay
				// reachable as Type.member, the bare name is ambiguous
				if prev.amb == nil {
					prev = &object{kind: objMember, name: m.Name, pos: prev.pos, amb: []*object{prev}}
					c.global.names[m.Name] = prev
				}
				prev.amb = append(prev.amb, o)
				continue
			}
			c.declare(c.global, o)
		}
		if len(t.Members) == 0 {
			c.errorf(t.Pos, "empty enumeration")
		}
	case *syntax.ArrayType:
		c.collectEnums(t.Index)
		c.collectEnums(t.Elem)
	case *syntax.RecordType:
		for _, f := range t.Fields {
			c.collectEnums(f.Type)
		}
	case *syntax.SetType:
		c.collectEnums(t.Elem)
	case *syntax.SeqType:
		c.collectEnums(t.Elem)
	}
}

// memberOf reports whether the member o, or one of the members it stands
// for when ambiguous, belongs to the enum type t.
func (o *object) memberOf(t *Type) bool {
	if o.typ == t {
		return true
	}
	for _, m := range o.amb {
		if m.typ == t {
			return true
		}
	}
	return false
}

// suggest returns the visible name nearest to name, or "".
func (c *checker) suggest(name string, s *scope) string {
	best, bestD := "", 3
	if len(name) <= 3 {
		bestD = 2
	}
	seen := map[string]bool{}
	for ; s != nil; s = s.parent {
		for n := range s.names {
			if seen[n] {
				continue
			}
			seen[n] = true
			d := editDistance(name, n)
			if d < bestD || (d == bestD && best != "" && n < best) {
				if d < bestD || n < best {
					best, bestD = n, d
				}
			}
		}
	}
	if best != "" && editDistance(name, best) >= len(name) {
		return ""
	}
	return best
}

func (c *checker) suggestKind(name string, k objKind) string {
	best, bestD := "", 3
	for n, o := range c.global.names {
		if o.kind != k {
			continue
		}
		d := editDistance(name, n)
		if d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	return best
}

func didYouMean(s string) string {
	if s == "" {
		return ""
	}
	return " (did you mean " + s + "?)"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// valueString prints a scalar value of type t.
func valueString(t *Type, v int64) string {
	switch t.Kind {
	case BoolKind:
		if v != 0 {
			return "true"
		}
		return "false"
	case EnumKind, SymmetricKind:
		if i := v - t.Lo; i >= 0 && i < int64(len(t.Names)) {
			return t.Names[i]
		}
	case SetKind:
		s := "{"
		n := 0
		for k := int64(0); k < 64 && t.Elem != nil && k < t.Elem.Size(); k++ {
			if v&(1<<k) != 0 {
				if n > 0 {
					s += ", "
				}
				s += valueString(t.Elem, t.Elem.Lo+k)
				n++
			}
		}
		return s + "}"
	}
	return strconv.FormatInt(v, 10)
}

// Suggest returns the name of names nearest to name (at most two edits,
// and fewer than name's length; the first in sorted order on a tie), or
// "" when none is near. Other packages use it, with [DidYouMean], for the
// same "did you mean" hints as the front end's errors.
func Suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(name, n)
		if d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	if best != "" && bestD >= len(name) {
		return ""
	}
	return best
}

// DidYouMean returns " (did you mean s?)", or "" when s is "".
func DidYouMean(s string) string { return didYouMean(s) }
