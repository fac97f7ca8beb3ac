package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/report"
)

func newLTLCmd() *cobra.Command {
	var dot, negate bool
	cmd := &cobra.Command{
		Use:   "ltl FORMULA",
		Short: "print the Büchi automaton of an LTL formula",
		Long: `ltl translates FORMULA, written as a property of the wrap language over
boolean names (for example 'always (req implies eventually ack)'), into the
transition-based generalized Büchi automaton wrapcheck uses, and prints its
states, edges and acceptance sets, or a DOT graph with --dot. Every name in
the formula is a boolean atom. With --negate it prints the automaton of the
negation: the one the checker searches for an accepting cycle.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, atoms, m, err := ltl.ParseFormula(args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			names := report.AtomNames(m, atoms)
			if negate {
				f = ltl.Not(f)
			}
			aut := ltl.Translate(f)
			if aut == nil {
				return &exitError{code: exitUsage, err: ltl.ErrTooManyEventualities}
			}
			out := cmd.OutOrStdout()
			if dot {
				fmt.Fprintln(out, strings.TrimRight(aut.DOT(), "\n"))
				return nil
			}
			fmt.Fprintf(out, "formula: %s\n", f.Format(names))
			fmt.Fprint(out, aut.Format(names))
			return nil
		},
	}
	cmd.Flags().BoolVar(&dot, "dot", false, "print the automaton as a DOT graph")
	cmd.Flags().BoolVar(&negate, "negate", false, "translate the negation of FORMULA (what the checker searches)")
	return cmd
}
