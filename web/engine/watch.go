package engine

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// WatchFile is the file name of the watches in their positions: watch i
// (from 0) is line i+1 of it, so that an error reads "watch:2:5:
// undefined: y" for the second, as check --watch's read "--watch:2:5".
const WatchFile = "watch"

// MaxWatches bounds the watches of one request.
const MaxWatches = 32

// Watch is one watch of a response: an expression of the spec evaluated
// in every state of the trace (op "check": the first violation's; op
// "watch": the request's Trace), as `check --watch` evaluates it
// (report.EvalWatches).
type Watch struct {
	// Expr is the expression as the request gave it.
	Expr string `json:"expr"`
	// Error is why the expression was refused (it does not parse or
	// check in the spec's scope); Values is then empty.
	Error *Diagnostic `json:"error,omitempty"`
	// Values holds the value at each step in wrap's notation, or "error:
	// " and the message where the evaluation failed in that state (a
	// division by zero, an index out of range).
	Values []string `json:"values,omitempty"`
}

// checkWatched checks file with the request's watches
// (spec.CheckWatched) and returns the model and one Watch per expression,
// its Error set for those refused; m.Watches holds the others, in order.
// err is the spec's own errors.
func checkWatched(ctx context.Context, file *syntax.File, req Request) (*spec.Model, []Watch, error) {
	if len(req.Watches) > MaxWatches {
		return nil, nil, fmt.Errorf("%d watches: at most %d", len(req.Watches), MaxWatches)
	}
	m, refused, err := spec.CheckWatched(file, spec.Options{Defines: req.Defines, Context: ctx}, WatchFile, req.Watches)
	if err != nil {
		return nil, nil, err
	}
	ws := make([]Watch, len(req.Watches))
	for i, src := range req.Watches {
		ws[i].Expr = src
		if e := refused[i]; e != nil {
			d := report.Diagnostics(e)[0] // its message with the secondary lines
			dg := diagnostic(d.Pos, d.Msg)
			ws[i].Error = &dg
		}
	}
	return m, ws, nil
}

// evalWatches fills the Values of the watches that m holds (those without
// an Error, in order) with their value in each of states.
func evalWatches(m *spec.Model, prog *machine.Program, ws []Watch, states [][]int64) error {
	texts, err := report.WatchTexts(m, prog, states)
	if err != nil {
		return err
	}
	j := 0
	for i := range ws {
		if ws[i].Error == nil && j < len(texts) {
			ws[i].Values = texts[j]
			j++
		}
	}
	return nil
}

// watch evaluates the watches of resp on states (op "watch": a trace the
// page received from an earlier check of the same source).
func watch(resp *Response, m *spec.Model, states [][]int64) error {
	prog, err := machine.Compile(m)
	if err != nil {
		return err
	}
	for i, st := range states {
		if len(st) != prog.Slots() {
			return fmt.Errorf("watch: state %d has %d slots, the spec %d (was the spec edited?)", i, len(st), prog.Slots())
		}
		for j, v := range st {
			if !inDomain(&m.Slots[j], v) {
				return fmt.Errorf("watch: state %d: slot %d holds %d, outside its domain (was the spec edited?)", i, j, v)
			}
		}
	}
	return evalWatches(m, prog, resp.Watches, states)
}

// inDomain reports whether v is a value the slot s can hold: in Lo..Hi,
// or for a set a mask of its Bits elements.
func inDomain(s *spec.Slot, v int64) bool {
	if s.Set {
		return v >= 0 && (s.Bits >= 63 || v < int64(1)<<s.Bits)
	}
	return v >= s.Lo && v <= s.Hi
}
