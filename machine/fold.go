package machine

import "github.com/wrapcheck/wrapcheck/spec"

// Quantifiers over small domains are unrolled at compile time: the body
// is copied once per value with the bound local replaced by a constant
// (spec.Substitute) and folded (spec.Fold), so that indexes such as
// run[x].rel[i] become static slot loads. Measured on pipeline K=3,N=2
// (4 invariants, two nested quantifiers each): see BenchmarkBFS and docs
// in doc.go. Folding itself is the front end's (spec.Fold); what is the
// compiler's own is here: which quantifiers to unroll (maxUnroll,
// maxUnrollSize) and folding the model's units before they are compiled
// (simplifyStmts), and, in eval.go, which folded loads become static.

const (
	maxUnroll     = 64   // largest domain unrolled
	maxUnrollSize = 4096 // largest unrolled expression, in nodes
)

// expandedSize is the number of nodes of e once its quantifiers are
// unrolled. Unrolling copies at most maxUnrollSize nodes, so it adds at
// most that many levels to the bounded height of e.
func expandedSize(e *spec.Expr) int {
	n := 1
	for _, a := range e.Args {
		n += expandedSize(a)
		if n > maxUnrollSize {
			return n
		}
	}
	switch e.Op {
	case spec.OpForall, spec.OpExists, spec.OpCount:
		if e.Dom != nil {
			k, _ := spec.DomainSize(e.Dom)
			n *= int(min(k, maxUnroll+1))
		} else {
			n *= 2
		}
	}
	return n
}

// unroll returns the instances of a quantifier's body, one per domain
// value, or nil when it cannot be unrolled.
func unroll(e *spec.Expr) []*spec.Expr {
	if e.Dom == nil || !e.Dom.IsFinite() {
		return nil // a set, array or record type: a loop
	}
	lo, hi := e.Dom.Lo, e.Dom.Hi
	if hi-lo+1 > maxUnroll || hi < lo || (hi-lo+1)*int64(expandedSize(e.Args[0])) > maxUnrollSize {
		return nil
	}
	var out []*spec.Expr
	for v := lo; v <= hi; v++ {
		s, ok := spec.Substitute(e.Args[0], e.Slot, &spec.Expr{Op: spec.OpConst, Type: e.Dom, Val: v, Pos: e.Pos})
		if !ok {
			return nil
		}
		out = append(out, spec.Fold(s))
	}
	return out
}

// simplifyStmts returns copies of stmts with folded expressions
// (spec.Fold).
func simplifyStmts(stmts []*spec.Stmt) []*spec.Stmt {
	if stmts == nil {
		return nil
	}
	out := make([]*spec.Stmt, len(stmts))
	for i, s := range stmts {
		x := *s
		x.Target = spec.Fold(s.Target)
		x.Value = spec.Fold(s.Value)
		x.Cond = spec.Fold(s.Cond)
		if s.Args != nil {
			x.Args = make([]*spec.Expr, len(s.Args))
			for j, a := range s.Args {
				x.Args[j] = spec.Fold(a)
			}
		}
		x.Body = simplifyStmts(s.Body)
		x.Else = simplifyStmts(s.Else)
		if s.Cases != nil {
			x.Cases = make([]*spec.Case, len(s.Cases))
			for j, c := range s.Cases {
				x.Cases[j] = &spec.Case{Values: c.Values, Body: simplifyStmts(c.Body)}
			}
		}
		out[i] = &x
	}
	return out
}
