package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
)

// slice returns the tokens of l in one slice.
func (l *tokenList) slice() []lexer.Token {
	out := make([]lexer.Token, 0, l.len())
	for i := range l.len() {
		out = append(out, *l.at(i))
	}
	return out
}

// TestTokenListChunks parses specs whose tokens fill several chunks of a
// tokenList, with a construct (and, in the second, an error) astride
// each chunk's end: the recursive-descent parser over the chunks, the
// participle grammar over them (sliceLexer) and Parse agree, and the
// tokens are those of one scan in order, ending in EOF.
func TestTokenListChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("spec Chunks\nvar x: 0..3\n")
	for i := 0; b.Len() < 5*tokenChunk*2; i++ {
		// 13 tokens an action: the chunks' ends fall in every place of it
		fmt.Fprintf(&b, "action a%d when x < 3 { x := (x + 1) %% 4 }\n", i)
	}
	good := b.String()
	toks, _, err := scanTokens("chunks.wrap", []byte(good), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(toks.chunks) < 3 {
		t.Fatalf("%d chunks: the spec does not cross a chunk's end", len(toks.chunks))
	}
	all := toks.slice()
	if all[len(all)-1].Type != tokEOF {
		t.Fatalf("last token %v, want EOF", all[len(all)-1])
	}
	for i := 1; i < len(all); i++ {
		if all[i].Pos.Offset < all[i-1].Pos.Offset+len(all[i-1].Value) {
			t.Fatalf("token %d at offset %d, before the end of the one before", i, all[i].Pos.Offset)
		}
	}
	c := &cursor{toks: toks}
	for i := 0; i < tokenChunk+2; i++ {
		c.Next()
	}
	m := c.mark()
	c.Next()
	c.reset(m)
	if got := c.Peek(); got != toks.at(tokenChunk+2) {
		t.Fatalf("after reset the cursor is at %v, want token %d", got, tokenChunk+2)
	}
	if !compareParsers(t, "chunks.wrap", []byte(good)) {
		t.Fatal("the spec is refused")
	}
	bad := good + "action last when x < { x := 1 }\n"
	if compareParsers(t, "chunks.wrap", []byte(bad)) {
		t.Fatal("the spec with an error is accepted")
	}
}
