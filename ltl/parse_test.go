package ltl_test

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/report"
)

// TestParseFormula: the formulas of `wrapcheck ltl` and the MCP server's
// ltl tool, with the errors pointing into the text typed.
func TestParseFormula(t *testing.T) {
	for _, tt := range []struct {
		text string
		want string // the formula as Format prints it, or the error
	}{
		{"always (req implies eventually ack)", "G (!req || F ack)"},
		{"p until q", "p U q"},
		{"always a or eventually c", "G a || F c"},
		{"eventually x1 and next _y", "F x1 && X _y"},
		{"always true", "true"},
		{"eventually (p and", "formula: expected expression, found EOF"},
		{"always x + 1", "formula:1:8: invalid operation: x + 1 (mismatched types bool and int)"},
		{"always p\neventually q", "formula: write the formula on one line"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			var got string
			f, atoms, m, err := ltl.ParseFormula(tt.text)
			if err != nil {
				got = err.Error()
			} else {
				got = f.Format(report.AtomNames(m, atoms))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFormulaNames: the names declared are the words of the text
// that are not keywords, as a regular expression finds them.
func TestParseFormulaNames(t *testing.T) {
	re := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	for _, text := range []string{"always (req2 implies eventually a_b)", "eventually (x and not y) until zz9", "p until (q or r) and always _s"} {
		_, _, m, err := ltl.ParseFormula(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		var got []string
		for _, v := range m.Vars {
			got = append(got, v.Name)
		}
		want := map[string]bool{}
		for _, id := range re.FindAllString(text, -1) {
			want[id] = true
		}
		for _, kw := range []string{"always", "eventually", "until", "implies", "and", "or", "not", "next"} {
			delete(want, kw)
		}
		if diff := cmp.Diff(len(want), len(got)); diff != "" {
			t.Errorf("%s: vars %v, want the names %v", text, got, want)
		}
		for _, n := range got {
			if !want[n] {
				t.Errorf("%s: var %s is not a name of the text", text, n)
			}
		}
	}
}
