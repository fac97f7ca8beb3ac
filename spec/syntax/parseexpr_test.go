package syntax_test

import (
	"testing"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestParseExpr parses one expression, and reports what is not one with
// its position.
func TestParseExpr(t *testing.T) {
	tests := []struct {
		name, src, want string // want: the printed expression, or the error
	}{
		{"binary", "content -  approved", "content - approved"},
		{"call and index", "card(s) + a[P1].x", "card(s) + a[P1].x"},
		{"quantifier", "forall p in Proc: flag[p]", "forall p in Proc: flag[p]"},
		{"empty", "", "e:1:1: expected an expression, found EOF"},
		{"trailing", "x y", "e:1:3: expected the end of the expression, found y"},
		{"unfinished", "x +", "e:1:4: expected expression, found EOF"},
		{"statement", "x := 1", "e:1:3: expected the end of the expression, found ':='"},
		{"bad character", "x $ 1", "e:1:3: invalid character '$'"},
		{"line", "\n\nx +", "e:3:4: expected expression, found EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := syntax.ParseExpr("e", []byte(tt.src))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = syntax.FormatExpr(x, nil)
			}
			if got != tt.want {
				t.Errorf("ParseExpr(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}
