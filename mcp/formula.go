package mcp

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// parseFormula reads a formula over boolean names as `wrapcheck ltl`
// does: it declares each name as a boolean variable of a one-property
// spec and converts the property. Errors point into the formula as
// "formula:1:col".
func parseFormula(text string) (*ltl.Formula, []string, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil, fmt.Errorf("formula: empty")
	}
	if strings.ContainsAny(text, "\n\r") {
		return nil, nil, fmt.Errorf("formula: write the formula on one line")
	}
	seen := map[string]bool{}
	var vars []string
	for _, id := range identRE.FindAllString(text, -1) {
		if !syntax.IsKeyword(id) && id != "then" && !seen[id] {
			seen[id] = true
			vars = append(vars, id)
		}
	}
	sort.Strings(vars)
	var src strings.Builder
	src.WriteString("spec Formula\n")
	for _, v := range vars {
		fmt.Fprintf(&src, "var %s: bool\n", v)
	}
	src.WriteString("property Formula:\n")
	line := strings.Count(src.String(), "\n") + 1
	src.WriteString(text + "\n")
	m, err := spec.ParseFile("formula", []byte(src.String()), spec.Options{})
	if err != nil {
		return nil, nil, formulaError(err, line)
	}
	if len(m.Properties) != 1 {
		return nil, nil, fmt.Errorf("formula: not a single formula")
	}
	f, atoms, err := ltl.FromProperty(m.Properties[0])
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(atoms))
	for i, a := range atoms {
		names[i] = report.ExprString(m, a, fmt.Sprintf("p%d", i))
	}
	return f, names, nil
}

// formulaError moves the positions of errors in the formula's line to
// line 1, so that they point into what the user typed.
func formulaError(err error, line int) error {
	list, ok := err.(syntax.ErrorList)
	if !ok {
		return err
	}
	var out syntax.ErrorList
	for _, e := range list {
		pos := e.Pos
		if pos.Line == line {
			pos.Line = 1
		} else {
			pos = syntax.Position{Filename: "formula"}
		}
		out.Add(pos, e.Msg)
	}
	return out.Err()
}
