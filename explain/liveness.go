package explain

import (
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Cycle explains the cycle of a liveness counterexample. It is the one
// analysis check's notes come from (verify.Cycle): explain adds the
// checked fixes ([Cycle.CheckFixes]).
type Cycle = verify.Cycle

// Liveness explains the lasso v of m (verify.Liveness). The error reports
// a model the engine cannot compile, a finite counterexample, or a cycle
// that does not close.
func Liveness(m *spec.Model, v *verdict.Violation) (*Cycle, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return verify.Liveness(prog, v)
}
