// Package gen writes random well-typed specs for the differential tests
// of every package: the one generator, with a shape per kind of test.
// The same *rand.Rand state gives the same spec, byte for byte.
//
// Each shape plants what the generator knows of its spec, so that a test
// compares two engines and also checks each against the truth:
//
//   - [Mixed]: every statement kind of the language; asserts whose
//     messages start with [Planted] hold in every state (the generator
//     computed them), so no engine may report one.
//   - [Symmetric]: a family indexed by a symmetric type, with arrays, sets
//     and records of it, and independent processes: for symmetry and
//     partial-order reduction.
//   - [Temporal]: a symmetric family with LTL properties of every shape
//     and fairness: for the reductions of the LTL search.
//   - [Exact]: integer expressions near and past the int64 bounds, with
//     the outcome exact arithmetic gives them ([Spec.Want]).
//   - [Pair]: a small two-process spec and a copy changed in one place
//     ([Spec.Mutant]), for comparing two versions of a spec.
//   - [Past]: a random past-time [Formula] ([Spec.Formula]) and a spec
//     whose invariants probe it and its atoms, for the past-time operators.
//   - [Live]: two small processes, an agent, a property and sometimes
//     fairness, for the analysis of liveness counterexamples.
//   - [Big]: a large spec of [Config.Lines] lines using most forms, for
//     the front end's benchmarks (it draws nothing from r).
//
// [GenerateModel] builds random models below the front end, directly in
// the IR ([Counters], [Rich]), with [Builder], which tests also use for
// the models they build by hand. [GenerateIRExpr] builds random scalar
// expressions of the IR, for spec's folding and substitution.
// [GenerateExpr] builds random expression trees of the syntax, for the
// printer and the parser.
//
// It is imported only by _test.go files.
package gen

import "math/rand/v2"

// Shape selects what a generated spec is made of.
type Shape int

// The shapes.
const (
	Mixed Shape = iota
	Symmetric
	Temporal
	Exact
	Pair
	Past
	Live
	Big
)

// Planted is the prefix of the message of every assert of a [Mixed] spec
// whose truth the generator computed: such an assert never fails.
const Planted = "planted:"

// Config says which spec to generate.
type Config struct {
	Shape Shape
	// Index numbers an Exact spec: it is named Exact<Index>.
	Index int
	// Constants makes an Exact spec declare its operands as constants, so
	// that the front end folds the whole expression.
	Constants bool
	// Failing adds to a Symmetric spec actions that can fail: an assert
	// and an assignment out of its variable's range.
	Failing bool
	// Loops adds to a Symmetric spec the forms of issue 37 that meet a
	// symmetric type: a sequence of identities (append, head, tail,
	// membership, indexing), a for over it whose body depends on the
	// order (the first other identity queued), a for and a sum over a
	// range, and an array literal of one constant indexed by the
	// symmetric type. Without it the draws are those of before.
	Loops bool
	// Lines is the size of a Big spec: about that many lines.
	Lines int
}

// Spec is a generated spec and what the generator knows of it.
type Spec struct {
	Source string
	// Want is the outcome of an Exact spec: "holds", "static" (the front
	// end rejects a constant out of range), or the kind of the violation
	// ("invariant", "runtime-error").
	Want string
	// Error is the front end's whole error for a "static" Exact spec, its
	// position line:col without the file name.
	Error string
	// Mutant is the Pair spec changed in one place, and Observed the
	// variables both versions have, in declaration order.
	Mutant   string
	Observed []string
	// Formula is the past-time formula of a Past spec. Its Source has the
	// invariant Probe (Formula or not Formula) and then A0, A1, ... (atom
	// or not atom) for the atom instances Atoms, in order; Base is the
	// spec without these invariants and Stuck the condition that no
	// action of it is enabled.
	Formula *Formula
	Atoms   []string
	Base    string
	Stuck   string
}

// Generate writes a random spec of the configured shape, drawing from r.
func Generate(r *rand.Rand, c Config) Spec {
	switch c.Shape {
	case Symmetric:
		return Spec{Source: symmetric(r, c.Failing, c.Loops)}
	case Temporal:
		return Spec{Source: temporal(r)}
	case Exact:
		g := &exactGen{r: r, vars: exactVars(r), konst: c.Constants}
		src, want, msg := g.exactSpec(c.Index)
		return Spec{Source: src, Want: want, Error: msg}
	case Pair:
		g := pairSpec(r)
		h := mutate(r, g)
		observed := []string{"x", "y"}
		if g.third == h.third {
			observed = append(observed, g.third)
		}
		return Spec{Source: g.text(), Mutant: h.text(), Observed: observed}
	case Past:
		return past(r)
	case Live:
		return Spec{Source: live(r)}
	case Big:
		return Spec{Source: bigSpec(c.Lines)}
	}
	return Spec{Source: mixed(r)}
}
