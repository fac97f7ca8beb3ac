package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
	"github.com/wrapcheck/wrapcheck/verdict"
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

// checkWatched checks file with the request's watches (spec.Options.Watches)
// and returns the model and one Watch per expression, its Error set for
// those refused. A refused watch does not reject the spec: it is left out
// of the model (m.Watches holds the others, in order). err is the spec's
// own errors.
func checkWatched(ctx context.Context, file *syntax.File, req Request) (*spec.Model, []Watch, error) {
	opts := spec.Options{Defines: req.Defines, Context: ctx}
	if len(req.Watches) > MaxWatches {
		return nil, nil, fmt.Errorf("%d watches: at most %d", len(req.Watches), MaxWatches)
	}
	ws := make([]Watch, len(req.Watches))
	var exprs []syntax.Expr
	var index []int // index[k]: the watch of exprs[k]
	for i, src := range req.Watches {
		ws[i].Expr = src
		if strings.ContainsAny(src, "\n\r") {
			ws[i].Error = watchError(i, 1, "an expression is one line")
			continue
		}
		// i line feeds before it: its positions are on line i+1
		x, err := syntax.ParseExpr(WatchFile, []byte(strings.Repeat("\n", i)+src))
		if err != nil {
			refuse(ws, err)
			continue
		}
		exprs, index = append(exprs, x), append(index, i)
	}
	for {
		opts.Watches = exprs
		m, err := spec.Check(file, opts)
		if err == nil {
			return m, ws, nil
		}
		// the errors in watches refuse them; any other is the spec's
		if !refuse(ws, err) {
			return nil, nil, err
		}
		var keep []syntax.Expr
		var kept []int
		for k, i := range index {
			if ws[i].Error == nil {
				keep, kept = append(keep, exprs[k]), append(kept, i)
			}
		}
		if len(keep) == len(exprs) {
			return nil, nil, err // an error in no watch's line: not ours to place
		}
		exprs, index = keep, kept
	}
}

// refuse sets the Error of each watch that err (a front-end error list)
// places in it, the first per watch, and reports whether every error of
// err is in a watch.
func refuse(ws []Watch, err error) bool {
	var list spec.ErrorList
	if !errors.As(err, &list) {
		return false
	}
	all := true
	for _, e := range list {
		d := report.Diagnostics(e)[0] // its message with the secondary lines
		i := d.Pos.Line - 1
		if d.Pos.Filename != WatchFile || i < 0 || i >= len(ws) {
			all = false
			continue
		}
		if ws[i].Error == nil {
			dg := diagnostic(d.Pos, d.Msg)
			ws[i].Error = &dg
		}
	}
	return all
}

func watchError(i, col int, msg string) *Diagnostic {
	d := diagnostic(spec.Position{Filename: WatchFile, Line: i + 1, Col: col}, msg)
	return &d
}

// evalWatches fills the Values of the watches that m holds (those without
// an Error, in order) with their value in each of states.
func evalWatches(m *spec.Model, prog *machine.Program, ws []Watch, states [][]int64) error {
	vals, err := report.EvalWatches(m, prog, states)
	if err != nil {
		return err
	}
	j := 0
	for i := range ws {
		if ws[i].Error != nil {
			continue
		}
		ws[i].Values = make([]string, len(states))
		for s := range states {
			ws[i].Values[s] = vals[s][j].Text()
		}
		j++
	}
	return nil
}

// traceStates returns the states of trace.
func traceStates(trace []verdict.Step) [][]int64 {
	out := make([][]int64, len(trace))
	for i, st := range trace {
		out[i] = st.State
	}
	return out
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
	}
	return evalWatches(m, prog, resp.Watches, states)
}
