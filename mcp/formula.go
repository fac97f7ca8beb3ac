package mcp

import (
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/report"
)

// parseFormula reads a formula over boolean names as `wrapcheck ltl`
// does (ltl.ParseFormula) and names its atoms. Errors point into the
// formula as "formula:1:col".
func parseFormula(text string) (*ltl.Formula, []string, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil, fmt.Errorf("formula: empty")
	}
	f, atoms, m, err := ltl.ParseFormula(text)
	if err != nil {
		return nil, nil, err
	}
	return f, report.AtomNames(m, atoms), nil
}
