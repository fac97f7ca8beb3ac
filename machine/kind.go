package machine

import "slices"

// Kind is the kind of a failed check: a [ExecError] is an Assertion or a
// RuntimeError; the search reports the others (package checker's
// Violation).
type Kind uint8

// Kinds of failed checks.
const (
	Invariant    Kind = iota // an invariant is false in a reachable state
	Property                 // an LTL property is violated (reported by package ltl)
	Deadlock                 // a reachable non-terminal state has no enabled action
	Assertion                // an assert statement failed
	RuntimeError             // out-of-range value or index, division by zero, bad set element
)

var kindNames = [...]string{"invariant", "property", "deadlock", "assertion", "runtime-error"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Answer is an agent answer taken on a step, in the order asked.
type Answer struct {
	Agent int     // index into spec.Model.Agents
	Value []int64 // Agent.Result.Width scalars
}

// CloneAnswers returns a copy of as that shares no memory with it (nil
// for none): what a caller of [Machine.Asked] keeps past its callback.
func CloneAnswers(as []Answer) []Answer {
	if len(as) == 0 {
		return nil
	}
	n := 0
	for _, a := range as {
		n += len(a.Value)
	}
	vals := make([]int64, 0, n)
	out := make([]Answer, len(as))
	for i, a := range as {
		k := len(vals)
		vals = append(vals, a.Value...)
		out[i] = Answer{Agent: a.Agent, Value: vals[k:len(vals):len(vals)]}
	}
	return out
}

// AnswersInclude reports whether the answers a branch took, got, include
// every answer of want (an agent asked twice on one step matches when any
// of its answers is the wanted one): how a recorded step's answers are
// matched, by replay and by the explanation of a trace.
func AnswersInclude(got, want []Answer) bool {
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g Answer) bool {
			return g.Agent == w.Agent && slices.Equal(g.Value, w.Value)
		}) {
			return false
		}
	}
	return true
}
