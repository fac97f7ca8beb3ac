// Package reduce implements the state-space reductions of wrapcheck as
// hooks of package checker: symmetry reduction ([Symmetry], a
// checker.CanonFunc) and partial-order reduction ([POR], a
// checker.AmpleFunc).
package reduce
