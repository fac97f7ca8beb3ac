package spec

// Walk calls visit for e and then, when visit returns true, walks each
// expression of e.Args in order: a depth-first, left-to-right traversal
// in which visit returning false skips the expressions inside e. A nil
// expression is not visited. The recursion is as deep as e is tall,
// which the front end bounds.
func Walk(e *Expr, visit func(*Expr) bool) {
	if e == nil || !visit(e) {
		return
	}
	for _, a := range e.Args {
		Walk(a, visit)
	}
}

// Contains reports whether pred holds for e or an expression inside it
// (e.Args, recursively); it stops at the first that it holds for.
func Contains(e *Expr, pred func(*Expr) bool) bool {
	found := false
	Walk(e, func(x *Expr) bool {
		if found {
			return false
		}
		found = pred(x)
		return !found
	})
	return found
}
