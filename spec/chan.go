package spec

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// Channels (an extension). chan[N] of T with N >= 1 is a buffered
// channel: a sequence (seq[N] of T, see seq.go) marked Chan, which only
// sends and receives change. chan[0] of T is a rendezvous channel: it
// holds no message; its variable is a record of one field len, always
// 0, that takes no bit of the packed state.
//
// A send `c ! e` or a receive `c ? x` is the first statement of an
// action, and it is part of the action's guard: a buffered send is
// enabled when c holds fewer than N messages, a buffered receive when it
// holds one (and, when the operand is a constant rather than a variable,
// when the first message equals it). Both lower to the statements an
// array and a counter written by hand would need: a send stores e at
// elems[len] and counts it, a receive copies elems[0] into x, shifts the
// elements one place down (the slot past the last message back to T's
// zero value, so equal contents have one encoding) and uncounts it.
//
// A rendezvous is one transition of a sending and a receiving action of
// two different process instances: each sending action of an instance
// becomes, in its place, one IR action per receiving action (of another
// instance) on the same channel variable, guarded by both guards, the
// same channel (for an array of channels, equal indexes) and, for a
// receive of a value, the match; its body evaluates e, runs the sender's
// body, stores e into the receiver's variable and runs the receiver's
// body. The sending and receiving actions are not actions of their own.
// Each such action reads and writes the channel's (empty) slot, so that
// partial-order reduction sees every pair of actions on one channel as
// dependent.

// MaxRendezvousPairs bounds the IR actions that rendezvous make, all
// channels together: each pair of a sending and a receiving action of two
// instances is one, so two families of n instances on one channel make
// n² of them.
const MaxRendezvousPairs = 1 << 16

// comm is a checked channel operation, the first statement of an action.
type comm struct {
	recv   bool
	rdv    bool  // a rendezvous channel
	ch     *Expr // the channel's location
	root   int   // the slot of the channel variable (the rendezvous key)
	index  *Expr // the index into an array of rendezvous channels, or nil
	value  *Expr // send: the message; receive of a value: the value to match
	target *Expr // receive into a variable: where the message is stored
	pos    Position
	stmt   *syntax.AssignStmt
}

// rendezvousType returns the type chan[0] of elem.
func rendezvousType(elem *Type) *Type {
	lenT := &Type{Kind: RangeKind, Lo: 0, Hi: 0, Width: 1}
	return &Type{Kind: RecordKind, Chan: true, Elem: elem, Width: 1, Fields: []*Field{{Name: "len", Type: lenT}}}
}

func isChan(t *Type) bool { return t != nil && t.Kind == RecordKind && t.Chan }

// chanCap returns the capacity N of the channel type t (0: rendezvous).
func chanCap(t *Type) int64 {
	if t.Seq {
		return seqCap(t)
	}
	return 0
}

// chanElem returns the message type of the channel type t.
func chanElem(t *Type) *Type {
	if t.Seq {
		return seqElem(t)
	}
	return t.Elem
}

// hasChan reports whether t is or holds a channel.
func hasChan(t *Type) bool { return holds(t, func(t *Type) bool { return t.Chan }) }

// chanPlace reports an error at pos when the global variable's type t
// holds a channel other than as itself or as the elements of an array.
func (c *checker) chanPlace(t *Type, pos Position, what string) {
	if isInvalid(t) || !hasChan(t) {
		return
	}
	u := t
	for u.Kind == ArrayKind {
		u = u.Elem
	}
	if !isChan(u) {
		c.errorf(pos, "invalid type %s for %s: a channel may not be part of a record", typeString(t), what)
	}
}

// noChan returns t, or invalid after an error at pos when t holds a
// channel: a channel is a global variable or an element of a global
// array of them, never a process local, a parameter, a result or a
// field.
func (c *checker) noChan(t *Type, pos Position, what string) *Type {
	if isInvalid(t) || !hasChan(t) {
		return t
	}
	c.errorf(pos, "invalid type %s for %s: a channel must be a global variable (or an array of them)", typeString(t), what)
	return c.tInvalid
}

// recvInto reports whether the operand of a receive names a place to
// store the message (a variable, a process local, an element or field of
// one) rather than a value to match.
func (c *checker) recvInto(e syntax.Expr, env *env) bool {
	switch t := e.(type) {
	case *syntax.IdentExpr:
		o := c.lookup(env.scope, t.Ident())
		return o != nil && (o.kind == objVar || o.kind == objLocalVar)
	case *syntax.IndexExpr:
		if id, ok := t.X.(*syntax.IdentExpr); ok {
			if o := c.lookup(env.scope, id.Ident()); o != nil && o.kind == objProcess {
				return true
			}
		}
		return c.recvInto(t.X, env)
	case *syntax.SelectorExpr:
		if id, ok := t.X.(*syntax.IdentExpr); ok {
			if o := c.lookup(env.scope, id.Ident()); o != nil && (o.kind == objProcess || o.kind == objType) {
				return o.kind == objProcess
			}
		}
		return c.recvInto(t.X, env)
	}
	return false
}

// commStmt checks the channel operation s, the first statement of an
// action; nil when it has an error (reported).
func (c *checker) commStmt(s *syntax.AssignStmt, env *env) *comm {
	fenv := env.flat()
	ch := c.expr(s.Target, fenv, nil)
	recv := s.Op == syntax.Recv
	verb := "send on"
	if recv {
		verb = "receive from"
	}
	if isInvalid(ch.Type) {
		c.resolveOnly(fenv, s.Value)
		return nil
	}
	if !isChan(ch.Type) || !ch.IsLocation() {
		c.resolveOnly(fenv, s.Value)
		c.errorf(s.Target.Position(), "cannot %s %s (type %s): not a channel", verb, exprString(s.Target), typeString(ch.Type))
		return nil
	}
	cm := &comm{recv: recv, rdv: !ch.Type.Seq, ch: ch, pos: s.Pos, stmt: s}
	elem := chanElem(ch.Type)
	ctx := verb + " " + exprString(s.Target)
	if recv && c.recvInto(s.Value, fenv) {
		cm.target = c.target(s.Value, env)
		if isInvalid(cm.target.Type) {
			return nil
		}
		if !assignableTo(elem, cm.target.Type) {
			c.errorf(s.Value.Position(), "cannot %s into %s (type %s): the messages are %s", ctx, exprString(s.Value), typeString(cm.target.Type), typeString(elem))
			return nil
		}
	} else {
		cm.value = c.expr(s.Value, fenv, elem)
		if isInvalid(cm.value.Type) {
			return nil
		}
		if recv && !isConstValue(cm.value) {
			c.errorf(s.Value.Position(), "cannot %s into %s: neither a variable nor a constant to match", ctx, exprString(s.Value))
			return nil
		}
		if !c.assignable(cm.value, elem, s.Value, ctx) {
			return nil
		}
	}
	if cm.rdv {
		switch {
		case ch.Op == OpVar:
			cm.root = ch.Slot
		case ch.Op == OpIndex && ch.Args[0].Op == OpVar:
			cm.root, cm.index = ch.Args[0].Slot, ch.Args[1]
		default:
			c.errorf(s.Target.Position(), "cannot %s %s: a rendezvous channel must be a variable or an element of an array of channels", verb, exprString(s.Target))
			return nil
		}
	}
	return cm
}

// notFirst reports a channel operation that is not the first statement
// of an action.
func (c *checker) notFirst(s *syntax.AssignStmt, env *env) {
	c.resolveOnly(env.flat(), s.Target, s.Value)
	what := "send on"
	if s.Op == syntax.Recv {
		what = "receive from"
	}
	c.errorf(s.Pos, "a %s %s must be the first statement of an action", what, exprString(s.Target))
}

func (c *checker) field(x *Expr, k int, pos Position) *Expr {
	f := x.Type.Fields[k]
	return &Expr{Op: OpField, Type: f.Type, Args: []*Expr{x}, Val: int64(f.Offset), Pos: pos}
}

func (c *checker) and(pos Position, xs ...*Expr) *Expr {
	var r *Expr
	for _, x := range xs {
		switch {
		case x == nil:
		case r == nil:
			r = x
		default:
			r = c.fold(&Expr{Op: OpAnd, Type: c.tBool, Args: []*Expr{r, x}, Pos: pos})
		}
	}
	return r
}

// buffered lowers a buffered channel operation into the guard and the
// first statements of a.
func (c *checker) buffered(a *Action, cm *comm) {
	pos, ch := cm.pos, cm.ch
	n := seqCap(ch.Type)
	l := c.field(ch, 0, pos)
	el := c.field(ch, 1, pos)
	at := func(k *Expr) *Expr { return &Expr{Op: OpIndex, Type: seqElem(ch.Type), Args: []*Expr{el, k}, Pos: pos} }
	k := func(v int64) *Expr { return c.constExpr(c.tInt, v, pos) }
	set := func(t, v *Expr) *Stmt { return &Stmt{Op: SAssign, Target: t, Value: v, Pos: pos} }
	var cond *Expr
	var pre []*Stmt
	if !cm.recv {
		cond = c.binop(OpLt, c.tBool, pos, l, k(n))
		pre = []*Stmt{set(at(l), cm.value), set(l, c.binop(OpAdd, c.tInt, pos, l, k(1)))}
	} else {
		cond = c.binop(OpGt, c.tBool, pos, l, k(0))
		var last *Stmt
		if cm.target != nil && storesIntoIndex(cm.target, ch) {
			// x indexes the channel (ring[k] ? k): the message waits in
			// a frame slot until the channel's statements are done
			slot := c.alloc(max(1, cm.target.Type.Width))
			pre = append(pre, &Stmt{Op: SLet, Slot: slot, Value: at(k(0)), Pos: pos})
			last = set(cm.target, &Expr{Op: OpLocal, Type: seqElem(ch.Type), Slot: slot, Pos: pos})
		} else if cm.target != nil {
			pre = append(pre, set(cm.target, at(k(0))))
		} else {
			cond = c.and(pos, cond, c.fold(&Expr{Op: OpEq, Type: c.tBool, Args: []*Expr{at(k(0)), cm.value}, Pos: pos}))
		}
		for j := int64(0); j+1 < n; j++ {
			pre = append(pre, set(at(k(j)), at(k(j+1))))
		}
		pre = append(pre, set(at(k(n-1)), c.zero(seqElem(ch.Type), pos)), set(l, c.binop(OpSub, c.tInt, pos, l, k(1))))
		if last != nil {
			pre = append(pre, last)
		}
	}
	a.Guard = c.and(pos, a.Guard, cond)
	a.Body = append(pre, a.Body...)
}

// storesIntoIndex reports whether storing into the location x may change
// what the index expressions of the channel location ch read.
func storesIntoIndex(x, ch *Expr) bool {
	lo, n, state := location(x)
	if !state {
		return false
	}
	rs := map[int]bool{}
	readPathIndexes(ch, rs)
	for s := range rs {
		if s >= lo && s < lo+n {
			return true
		}
	}
	return false
}

// rdvAction is a lowered action that sends or receives on a rendezvous
// channel: it runs only as part of a rendezvous (see [checker.rendezvous]).
type rdvAction struct {
	act   *Action
	cm    *comm
	frame int // the frame slots its unit used
	proc  *procInfo
	key   int // index into proc.irActs: instance*len(proc.actions)+action
	// paired: it meets an action of another instance; self: an action
	// of its own instance it would meet, or nil
	paired bool
	self   *rdvAction
}

// rendezvous returns the IR action of the rendezvous of the sending
// action s and the receiving action r: both guards, the same channel,
// the match; the message kept in a frame slot past both units' frames.
func (c *checker) rendezvous(s, r *rdvAction) *Action {
	pos := s.cm.pos
	a := &Action{Name: s.act.Name + "|" + r.act.Name, Short: s.act.Short + "|" + r.act.Short, Process: s.act.Process, Pos: s.act.Pos}
	// reading the channel checks its index (a runtime error when out of
	// range) and makes the pairs on one channel dependent
	same := c.binop(OpEq, c.tBool, pos, c.field(s.cm.ch, 0, pos), c.constExpr(c.tInt, 0, pos))
	var idx, match *Expr
	if s.cm.index != nil && r.cm.index != nil {
		idx = c.binop(OpEq, c.tBool, pos, s.cm.index, r.cm.index)
	}
	if r.cm.value != nil {
		match = c.fold(&Expr{Op: OpEq, Type: c.tBool, Args: []*Expr{s.cm.value, r.cm.value}, Pos: pos})
	}
	a.Guard = c.and(pos, s.act.Guard, r.act.Guard, same, idx, match)
	if a.Guard != nil && a.Guard.Op == OpConst && a.Guard.Val == 1 {
		a.Guard = nil
	}
	slot := max(s.frame, r.frame)
	w := max(1, s.cm.value.Type.Width)
	if slot+w > c.model.Frame {
		c.model.Frame = slot + w
	}
	msg := &Expr{Op: OpLocal, Type: s.cm.value.Type, Slot: slot, Pos: pos}
	a.Body = []*Stmt{
		{Op: SLet, Slot: slot, Value: s.cm.value, Pos: pos},
		{Op: SAssign, Target: c.field(s.cm.ch, 0, pos), Value: c.constExpr(c.tInt, 0, pos), Pos: pos},
	}
	a.Body = append(a.Body, s.act.Body...)
	if r.cm.target != nil {
		a.Body = append(a.Body, &Stmt{Op: SAssign, Target: r.cm.target, Value: msg, Pos: r.cm.pos})
	}
	a.Body = append(a.Body, r.act.Body...)
	return a
}

// pairs appends to m.Actions, in the place of the sending action s of
// instance k, its rendezvous with every receiving action of another
// instance on the same channel, instance after instance; it returns
// their indexes. A pair within one instance is no rendezvous: a process
// cannot meet itself.
func (c *checker) pairs(s *rdvAction, recvs []*rdvAction) []int {
	var out []int
	for _, r := range recvs {
		if r.cm.root != s.cm.root || constNe(s.cm.index, r.cm.index) {
			continue
		}
		if r.act.Process == s.act.Process {
			s.self, r.self = r, s
			continue
		}
		if c.pairsMade++; c.pairsMade > MaxRendezvousPairs {
			if c.pairsMade == MaxRendezvousPairs+1 {
				c.errorf(s.cm.pos, "rendezvous on %s: more than %d pairs of sending and receiving actions in the spec", exprString(s.cm.stmt.Target), MaxRendezvousPairs)
			}
			return out
		}
		s.paired, r.paired = true, true
		r.proc.irActs[r.key] = append(r.proc.irActs[r.key], len(c.model.Actions))
		out = append(out, len(c.model.Actions))
		c.model.Actions = append(c.model.Actions, c.rendezvous(s, r))
	}
	return out
}

// lonely reports the rendezvous actions (of the first instance of their
// process) that meet no other process but could meet an action of their
// own: a process cannot meet itself.
func (c *checker) lonely(rvs []*rdvAction) {
	for _, v := range rvs {
		if !v.paired && v.self == nil && v.key < len(v.proc.actions) {
			// vet: an action no other process can meet never runs
			verb, other := "sends on", "receives from"
			if v.cm.recv {
				verb, other = other, verb
			}
			c.vet.warnings = append(c.vet.warnings, Warning{Pos: v.cm.pos, Msg: fmt.Sprintf("action %s never runs: it %s the rendezvous channel %s, which no action of another process %s", v.proc.actions[v.key].Name.Name, verb, exprString(v.cm.stmt.Target), other)})
		}
		if v.paired || v.self == nil || v.key >= len(v.proc.actions) || !v.cm.recv && !v.self.paired {
			continue // the receive reports a pair that meets nothing else
		}
		d, o := v.proc.actions[v.key], v.proc.actions[v.self.key%len(v.proc.actions)]
		verb, other := "sends on", "receives from"
		if v.cm.recv {
			verb, other = other, verb
		}
		c.errorNotes(v.cm.pos, []syntax.Note{note(v.self.cm.pos, "%s %s it here", o.Name.Name, other)},
			"rendezvous between two actions of one process: %s %s %s, which only %s of the same process %s; a process cannot meet itself", d.Name.Name, verb, exprString(v.cm.stmt.Target), o.Name.Name, other)
	}
}

// isConstValue reports whether e is a constant: a scalar, or an array or
// record literal of constants.
func isConstValue(e *Expr) bool {
	if e.Op == OpRecordLit {
		for _, a := range e.Args {
			if !isConstValue(a) {
				return false
			}
		}
		return true
	}
	return e.Op == OpConst
}

// constNe reports whether two channel indexes are different constants:
// the actions can never meet.
func constNe(x, y *Expr) bool {
	return x != nil && y != nil && x.Op == OpConst && y.Op == OpConst && x.Val != y.Val
}
