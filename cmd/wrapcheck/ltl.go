package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/report"
)

func newLTLCmd() *cobra.Command {
	var dot, negate bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "ltl FORMULA",
		Short: "print the Büchi automaton of an LTL formula",
		Long: `ltl translates FORMULA, written as a property of the wrap language over
boolean names (for example 'always (req implies eventually ack)'), into the
transition-based generalized Büchi automaton wrapcheck uses, and prints its
states, edges and acceptance sets, or a DOT graph with --dot. Every name in
the formula is a boolean atom. With --negate it prints the automaton of the
negation: the one the checker searches for an accepting cycle.

The automaton can be exponentially larger than the formula: --timeout, and
SIGINT or SIGTERM, stop the translation with exit 3.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var out sync.Mutex
			return limited("ltl", timeout, &out, func(ctx context.Context) error {
				f, atoms, m, err := ltl.ParseFormula(args[0])
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				names := report.AtomNames(m, atoms)
				if negate {
					f = ltl.Not(f)
				}
				aut, err := ltl.TranslateContext(ctx, f, 0)
				if errors.Is(err, ltl.ErrTooManyEventualities) {
					return &exitError{code: exitUsage, err: err}
				}
				if err != nil {
					return err
				}
				out.Lock()
				defer out.Unlock()
				w := cmd.OutOrStdout()
				if dot {
					fmt.Fprintln(w, strings.TrimRight(aut.DOT(), "\n"))
					return nil
				}
				fmt.Fprintf(w, "formula: %s\n", f.Format(names))
				fmt.Fprint(w, aut.Format(names))
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&dot, "dot", false, "print the automaton as a DOT graph")
	cmd.Flags().BoolVar(&negate, "negate", false, "translate the negation of FORMULA (what the checker searches)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "stop after this long, e.g. 30s (0: no limit): exit 3")
	return cmd
}
