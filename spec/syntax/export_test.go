package syntax

// Sexpr is sexpr for the tests of package syntax_test.
func Sexpr(n any) string { return sexpr(n) }
