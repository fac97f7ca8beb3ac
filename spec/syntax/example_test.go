package syntax_test

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

func ExampleParse() {
	src := []byte(`spec Counter
var n: 0..3 = 0
action inc when n < 3 { n := n + 1 }
invariant Small: n <= 3
`)
	f, err := syntax.Parse("counter.wrap", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	inv := f.Decls[2].(*syntax.InvariantDecl)
	cmp := inv.Expr.(*syntax.BinaryExpr)
	fmt.Println(f.Name, len(f.Decls), inv.Name.Name, cmp.Op, cmp.OpPos)

	_, err = syntax.Parse("bad.wrap", []byte("spec Bad\ninvariant I: a < b < c\n"))
	fmt.Println(err)
	// Output:
	// Counter 3 Small <= counter.wrap:4:20
	// bad.wrap:2:20: expected end of comparison, found '<' (comparisons do not chain)
}

func ExampleFormat() {
	src := []byte("spec Counter\nvar n:0..3=0 // the count\naction inc when n<3{n:=n+1;skip}\n")
	f, err := syntax.Parse("counter.wrap", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(syntax.Format(f)))
	// Output:
	// spec Counter
	// var n: 0..3 = 0 // the count
	// action inc when n < 3 {
	//   n := n + 1
	//   skip
	// }
}
