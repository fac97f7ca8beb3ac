package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// parseWatches parses the expressions of --watch (or eval's) as the lines
// of one file named name: the i-th expression is line i, so that an
// error reads "--watch:2:7: undefined: x" for the second. An expression
// given twice is refused.
func parseWatches(name string, exprs []string) ([]syntax.Expr, error) {
	var out []syntax.Expr
	var list syntax.ErrorList
	seen := map[string]bool{}
	for i, src := range exprs {
		if seen[src] {
			return nil, fmt.Errorf("%s %s: given twice", name, shorten(src))
		}
		seen[src] = true
		if strings.ContainsAny(src, "\n\r") {
			list.Add(syntax.Position{Filename: name, Line: i + 1, Col: 1}, "an expression is one line")
			continue
		}
		// i line feeds before it: its positions are on line i+1
		x, err := syntax.ParseExpr(name, []byte(strings.Repeat("\n", i)+src))
		if err != nil {
			var el syntax.ErrorList
			if errors.As(err, &el) {
				list = append(list, el...)
				continue
			}
			return nil, err
		}
		out = append(out, x)
	}
	if err := list.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// newEvalCmd returns `wrapcheck eval`.
func newEvalCmd() *cobra.Command {
	var (
		defines []string
		state   string
		format  string
	)
	cmd := &cobra.Command{
		Use:   "eval FILE EXPR",
		Short: "evaluate an expression of the spec in FILE on a state",
		Long: `eval checks EXPR in the scope of the spec in FILE, as an invariant is
checked (of any type, over the state variables, constants and fns), and
prints its value in the state given by --state: a JSON object with every
variable, as check --format json writes a trace entry's "state" (a whole
trace entry is read by its "state"). --state takes the JSON itself, a file
name, or - for standard input. An expression that reads no variable needs
no state.

With --format json it prints {"expression": EXPR, "value": VALUE}, the value
as check's JSON writes it.

Exit codes: 0 the value was printed, 2 the spec, EXPR or the state is wrong
(the error says where: file:line:col, EXPR being the file "expr"), or EXPR
fails in the state (a division by zero, an index out of range).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text or json", report.Escape(format))}
			}
			return runEval(cmd, args[0], args[1], state, defines, format == "json")
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringVar(&state, "state", "", "the state: JSON ({\"x\": 1, ...}), a file holding it, or - (standard input)")
	fl.StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// runEval is `wrapcheck eval`: parse and check the spec with EXPR as a
// watch, read the state, evaluate, print.
func runEval(cmd *cobra.Command, path, expr, stateArg string, defines []string, asJSON bool) error {
	usage := func(err error) error { return &exitError{code: exitUsage, err: err} }
	x, err := parseWatches("expr", []string{expr})
	if err != nil {
		return usage(err)
	}
	defs, err := parseDefines(defines)
	if err != nil {
		return usage(err)
	}
	defs.Watches = x
	src, err := readSpecContext(context.Background(), path)
	if err != nil {
		return usage(err)
	}
	m, err := spec.ParseFile(displayPath(path), src, defs)
	if err != nil {
		return usage(err)
	}
	w := m.Watches[0]
	state := make([]int64, len(m.Slots))
	switch {
	case stateArg != "":
		name, data := "--state", []byte(stateArg)
		if t := strings.TrimSpace(stateArg); !strings.HasPrefix(t, "{") {
			name = displayPath(stateArg)
			if stateArg == "-" {
				name = "<stdin>"
				data, err = io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxSpecBytes+1))
			} else {
				data, err = os.ReadFile(stateArg)
			}
			if err != nil {
				return usage(err)
			}
		}
		if state, err = replay.DecodeState(m, name, data); err != nil {
			return usage(err)
		}
	case spec.Contains(w.Expr, func(e *spec.Expr) bool { return e.Op == spec.OpVar }):
		return usage(fmt.Errorf("%s reads the state: give one with --state", shorten(expr)))
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return usage(err)
	}
	vals, err := report.EvalWatches(m, prog, [][]int64{state})
	if err != nil {
		return usage(err)
	}
	v := vals[0][0]
	if v.Err != "" {
		at := "expr"
		if v.Pos.IsValid() {
			at = v.Pos.String()
		}
		return usage(fmt.Errorf("%s: %s", at, v.Err))
	}
	out := cmd.OutOrStdout()
	if asJSON {
		text, err := json.Marshal(w.Text)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "{\"expression\": %s, \"value\": %s}\n", text, report.ValueJSON(v.Type, v.Slots))
		return err
	}
	_, err = fmt.Fprintln(out, report.Escape(v.Text()))
	return err
}
