package verdict_test

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/verdict"
)

func ExamplePlural() {
	for _, n := range []int{0, 1, 3} {
		fmt.Println(verdict.Plural(n, "step"))
	}
	// Output:
	// 0 steps
	// 1 step
	// 3 steps
}
