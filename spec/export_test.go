package spec

import "errors"

// The internals that the external tests (package spec_test, which may
// import internal/gen) use.

// SExpr prints an IR expression compactly, as sexpr does.
func SExpr(e *Expr) string { return sexpr(e) }

// EvalFrame evaluates e, a scalar that reads no state, with the constant
// evaluator over a frame of size slots that starts with vals, within
// steps evaluation steps.
func EvalFrame(e *Expr, vals []int64, size, steps int) (int64, error) {
	ev := &frameEval{frame: make([]int64, size), steps: steps}
	copy(ev.frame, vals)
	return ev.scalar(e)
}

// IsEvalFailure reports whether err is the constant evaluator's runtime
// error or integer overflow, rather than an internal failure.
func IsEvalFailure(err error) bool {
	return errors.Is(err, errRuntime) || errors.Is(err, errOverflow)
}

// ValueSeq returns o with the in-place lowering of `q := append(q, x)`
// and `q := tail(q)` off: every sequence assignment stores the value.
func ValueSeq(o Options) Options {
	o.valueSeq = true
	return o
}
