package syntax

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGrammarEBNF checks that docs/grammar.ebnf is the EBNF of the
// participle grammar. Regenerate it with WRAPCHECK_UPDATE=1 go test.
func TestGrammarEBNF(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "grammar.ebnf")
	got := grammarEBNF()
	if os.Getenv("WRAPCHECK_UPDATE") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run WRAPCHECK_UPDATE=1 go test ./spec/syntax/)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("docs/grammar.ebnf is stale; run WRAPCHECK_UPDATE=1 go test ./spec/syntax/ (-want +got)\n%s", diff)
	}
}
