package spec

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestBuiltinsAreWords: the builtin functions the checker knows are the
// words of kind Builtin of spec/syntax's table, from which the language
// server and the editors take theirs.
func TestBuiltinsAreWords(t *testing.T) {
	var words []string
	for _, w := range syntax.Words() {
		if w.Kind == syntax.Builtin {
			words = append(words, w.Name)
		}
	}
	known := append(slices.Collect(maps.Keys(seqArity)), "card")
	slices.Sort(words)
	slices.Sort(known)
	if diff := cmp.Diff(known, words); diff != "" {
		t.Errorf("builtins (-checker +table of words):\n%s", diff)
	}
}
