package spec

import "github.com/wrapcheck/wrapcheck/spec/syntax"

// ParseFile parses src (read from filename) with [syntax.Parse] and checks
// it with [Check].
func ParseFile(filename string, src []byte, opts Options) (*Model, error) {
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	return Check(f, opts)
}
