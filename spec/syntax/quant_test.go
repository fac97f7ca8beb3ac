package syntax

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestQuantDecls parses the declarations of the quantitative extension
// with both parsers and prints them back.
func TestQuantDecls(t *testing.T) {
	src := `spec Q
agent coin(x: 0..3): bool
rate coin when x > 0 {
  true: 9 of 10
  false: 1 of 10
}
rate coin {}
probability A: eventually x == 1
probability B: max eventually x == 1 within 3 bound <= 0.05
probability C: min (x == 0) until x == 1 bound > 1/2
probability D: eventually x == 1 bound >= 1
cost Calls {
  verify: 1
  when x > 2: 1/2
}
cost None {}
expected E: max Calls until x == 3 bound <= 2.5
expected F: Calls until x == 3
`
	f, err := parseWith("q.wrap", []byte(src), false, descentOnly)
	if err != nil {
		t.Fatal(err)
	}
	g, err := parseWith("q.wrap", []byte(src), false, grammarOnly)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(g, f, astOpts); diff != "" {
		t.Errorf("descent and participle differ (-participle +descent):\n%s", diff)
	}
	b := f.Decls[4].(*ProbabilityDecl)
	if b.Opt != "max" || b.Within.Value != 3 || b.Bound.Op != Le || b.Bound.Value != "0.05" {
		t.Errorf("B = %+v", b)
	}
	r := f.Decls[1].(*RateDecl)
	if len(r.Answers) != 2 || !r.Answers[0].Count || r.Answers[0].Num.Value != 9 || r.When == nil {
		t.Errorf("rate = %+v", r)
	}
	out := string(Format(f))
	if out != src {
		t.Errorf("Format:\n%s\nwant:\n%s", out, src)
	}
}
