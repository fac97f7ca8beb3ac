package verdict

import (
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Verdict is the outcome of a search.
type Verdict uint8

// Verdicts.
const (
	Holds    Verdict = iota // every check holds in every reachable state
	Violated                // Result.Violation describes a violation
	Unknown                 // the search stopped early; see Result.Stop
)

var verdictNames = [...]string{"holds", "violated", "incomplete"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict?"
}

// Kind is the kind of a [Violation] (the same type as machine.Kind, so
// that a machine's ExecError and a Violation compare directly).
type Kind = machine.Kind

// Violation kinds.
const (
	Invariant    = machine.Invariant    // an invariant is false in a reachable state
	Property     = machine.Property     // an LTL property is violated (reported by package ltl)
	Deadlock     = machine.Deadlock     // a reachable non-terminal state has no enabled action
	Assertion    = machine.Assertion    // an assert statement failed
	RuntimeError = machine.RuntimeError // out-of-range value or index, division by zero, bad set element
)

// Result is the outcome of a search: of checker.Run, of each LTL
// property, of the distributed search, of verify.Run for a whole spec.
type Result struct {
	Verdict   Verdict
	Violation *Violation // non-nil iff Verdict == Violated
	// Violations are the violated checks found, the first one being
	// Violation: without checker.Options.Continue, that one alone; with it, the
	// first (shortest) violation of every failing check, by depth, then
	// in the order in which one search would pick them.
	Violations []*Violation
	// Stop says why the search ended before it explored every reachable
	// state: a limit (Verdict Unknown), or StopAtViolation when it stopped
	// at the end of the level of the first violation (without
	// checker.Options.Continue) with states left to explore; Stats then cover the
	// states explored until then. NotStopped otherwise.
	Stop StopReason
	// StopErr is the error of a StopIO stop.
	StopErr error
	// Undecided names the selected LTL properties that were not decided:
	// not searched (the search stopped at a safety violation), or whose
	// search stopped early (a limit, or an assertion or runtime error met
	// on the way). Set by package verify.
	Undecided []string
	Stats     Stats
	Coverage  Coverage
	// Notes are remarks for the reader that are not part of the verdict,
	// such as the fairness a property needed or a process a lasso starves.
	Notes []string
}

// Reason returns the words that say why the verdict is Unknown (see
// [StopReason.String]; for StopIO, followed by ": " and StopErr), and ""
// when the search was not stopped by a limit.
func (r *Result) Reason() string {
	if r.Stop == StopIO && r.StopErr != nil {
		return r.Stop.String() + ": " + r.StopErr.Error()
	}
	return r.Stop.String()
}

// StopReason says why a search ended before it explored every reachable
// state.
type StopReason uint8

// Stop reasons. Every one but NotStopped and StopAtViolation comes with
// Verdict Unknown.
const (
	NotStopped      StopReason = iota // every reachable state was explored
	StopAtViolation                   // at the end of the level of the first violation, states left (checker.Options.Continue off)
	StopStates                        // "state limit": checker.Options.MaxStates, or a full store
	StopDepth                         // "depth limit": checker.Options.MaxDepth
	StopTimeout                       // "timeout": the context's deadline
	StopInterrupted                   // "interrupted": the context was cancelled
	StopMemory                        // "memory budget": checker.Options.MemoryBudget
	StopIO                            // "I/O error of the temporary files" (HashCompact); see Result.StopErr
)

var stopReasonNames = [...]string{"", "", "state limit", "depth limit", "timeout", "interrupted", "memory budget", "I/O error of the temporary files"}

// String returns the words the renderers print for a limit ("state
// limit", "timeout", ...), and "" for NotStopped and StopAtViolation.
func (r StopReason) String() string {
	if int(r) < len(stopReasonNames) {
		return stopReasonNames[r]
	}
	return "stop?"
}

// Violation is a violated check with a shortest trace that reaches it.
type Violation struct {
	// Name is the invariant or property name; for an assertion or a
	// runtime error, the name of the action ("init" for the init block,
	// the invariant's name when evaluating it failed, "terminal" when
	// evaluating the terminal condition of a stuck state failed); "" for
	// a deadlock.
	Name string
	Kind Kind
	Pos  spec.Position
	Msg  string
	// Trace starts in an initial state. For an invariant or a deadlock
	// its last state is the bad state; for an assertion or runtime error
	// the last step is the failing action, with the state as it was when
	// the failure happened.
	Trace []Step
	// LoopStart is the index in Trace where a lasso's cycle starts, or -1
	// for a finite trace.
	LoopStart int
	// Slice, when not nil, is the causal slice of a finite trace, which
	// the renderers of package report show. The search never sets it:
	// package explain computes it (explain.Attach, `wrapcheck check
	// --explain`).
	Slice *Slice
}

// Slice says which steps of a finite counterexample matter to its
// violation, and why. It is plain data: package explain computes it,
// package report renders it.
type Slice struct {
	// Steps has one entry per Trace entry; Steps[0] (the initial state)
	// is never essential.
	Steps []SliceStep
	// Reads lists the variables the violated check reads, in model order.
	Reads []string
}

// SliceStep is one step of a [Slice].
type SliceStep struct {
	// Essential is set when the trace without the step, replayed from the
	// same initial state, is no longer a run of the spec or no longer
	// reaches the violation.
	Essential bool
	// Changed lists the variables the step changed, in model order.
	Changed []string
	// BeforeNext is set when the step must come before the next one: the
	// trace with the two swapped is no longer a run of the spec, or no
	// longer reaches the violation. Never set on the last step.
	BeforeNext bool
	// Because says why the step matters, or is empty: "writes granted,
	// read by ShippedWhatWasApproved", "writes phase, read by step 3
	// (wrapper.verify)", "without it step 4 (releaser.release) is not
	// possible".
	Because string
}

// Step is one entry of a trace.
type Step struct {
	Action int     // index into spec.Model.Actions; -1 for the initial state
	State  []int64 // unpacked slots
	Asked  []Answer
}

// Answer is an agent answer taken on a step, in the order asked
// (machine.Answer).
type Answer = machine.Answer

// Stats are the figures of a search. States and Transitions are the same
// for every Workers value when the search completes.
type Stats struct {
	States      int64 // distinct states stored
	Transitions int64 // successors generated, duplicates included
	Depth       int   // the largest BFS level that holds a stored state
	Seconds     float64
	// PropertySeconds is the part of Seconds spent on LTL properties
	// (set by package verify; 0 when there were none).
	PropertySeconds float64
	Workers         int
	// PeakHeapBytes is the largest Go heap size sampled during the search.
	PeakHeapBytes uint64
	// BytesPerState is the visited store's memory per state: the packed
	// vector and parent link, plus the hash tables divided by States.
	// With several workers a table can be grown one entry before its
	// bound (two workers counting the same new state at once), so like
	// PeakHeapBytes it may differ between Workers values.
	BytesPerState float64
}

// Coverage reports which parts of the model the search exercised.
type Coverage struct {
	Fired []int64 // per action: successors generated by it
	// VacuousInvariants lists, in declaration order, the checked
	// invariants of the form `a implies b` (possibly under forall) whose
	// antecedent held in no stored state.
	VacuousInvariants []string
}
