package ltl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// ParseFormula reads text, an LTL formula written as a property of the
// wrap language over boolean names (`always (req implies eventually
// ack)`), on one line. Every name in it that is not a keyword is a
// boolean variable of a one-property model, m, of which the atoms are
// expressions: Atom(i) of the formula stands for atoms[i]. Errors point
// into text as "formula:1:col".
func ParseFormula(text string) (f *Formula, atoms []*spec.Expr, m *spec.Model, err error) {
	if strings.ContainsAny(text, "\n\r") {
		return nil, nil, nil, fmt.Errorf("formula: write the formula on one line")
	}
	seen := map[string]bool{}
	var vars []string
	for _, id := range identifiers(text) {
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
	m, err = spec.ParseFile("formula", []byte(src.String()), spec.Options{})
	if err != nil {
		return nil, nil, nil, formulaError(err, line)
	}
	if len(m.Properties) != 1 {
		return nil, nil, nil, fmt.Errorf("formula: not a single formula")
	}
	f, atoms, err = FromProperty(m.Properties[0])
	if err != nil {
		return nil, nil, nil, err
	}
	return f, atoms, m, nil
}

// identifiers returns the words of text that have the form of a name,
// [A-Za-z_][A-Za-z0-9_]*, left to right.
func identifiers(text string) []string {
	isStart := func(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || '0' <= c && c <= '9' }
	var ids []string
	for i := 0; i < len(text); {
		if !isStart(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isPart(text[j]) {
			j++
		}
		ids = append(ids, text[i:j])
		i = j
	}
	return ids
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
