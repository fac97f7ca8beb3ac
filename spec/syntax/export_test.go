package syntax

// Sexpr is sexpr for the tests of package syntax_test.
func Sexpr(n any) string { return sexpr(n) }

// ParseGrammar is Parse with the participle grammar alone, the reference.
func ParseGrammar(filename string, src []byte) (*File, error) {
	return parseWith(filename, src, true, grammarOnly)
}

// ParseDescent is Parse with the recursive-descent parser alone.
func ParseDescent(filename string, src []byte) (*File, error) {
	return parseWith(filename, src, true, descentOnly)
}

// TreeDiff is treeDiff for the tests of package syntax_test.
func TreeDiff(want, got *File) string { return treeDiff(want, got) }
