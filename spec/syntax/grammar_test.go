package syntax

import (
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/golden"
)

// TestGrammarEBNF checks that docs/grammar.ebnf is the EBNF of the
// participle grammar. Regenerate it with WRAPCHECK_UPDATE=1 go test.
func TestGrammarEBNF(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "grammar.ebnf")
	golden.Check(t, path, []byte(grammarEBNF()))
}
