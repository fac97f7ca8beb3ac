package lsp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// maxAnalyzed is the largest document, in bytes, that the server parses
// and checks as it is typed. A larger one gets a single diagnostic that
// says so, and no language features: the front end takes seconds on such
// files, and a .wrap spec is rarely over a few kilobytes.
const maxAnalyzed = 2 << 20

// analysis is what the server knows about one version of a document.
type analysis struct {
	doc   *document
	file  *syntax.File // nil when the document does not parse
	model *spec.Model  // nil when it does not check
	ix    *index       // nil when file is nil
	diags []diagnostic
	// fixes maps a diagnostic's message to the replacement its "did you
	// mean" suggestion offers.
	fixes map[string]string
}

// analyze parses, checks and vets d. It never panics: the front end
// reports every problem as an error, and an internal failure becomes a
// diagnostic too.
func analyze(d *document) (a *analysis) {
	a = &analysis{doc: d, fixes: map[string]string{}}
	defer func() {
		if r := recover(); r != nil {
			a.file, a.model, a.ix = nil, nil, nil
			a.diags = []diagnostic{{
				Range: lspRange{}, Severity: severityError, Source: "wrapcheck",
				Message: fmt.Sprintf("wrapcheck internal error: %v", r),
			}}
		}
	}()
	if len(d.text) > maxAnalyzed {
		a.diags = []diagnostic{{
			Range:    lspRange{End: d.lspPos(min(len(d.line(0)), len(d.text)))},
			Severity: severityWarning, Source: "wrapcheck",
			Message: fmt.Sprintf("file too large to analyse while editing (%d bytes, the limit is %d); run wrapcheck check on it",
				len(d.text), maxAnalyzed),
		}}
		return a
	}
	name := uriPath(d.uri)
	f, err := syntax.Parse(name, []byte(d.text))
	if err != nil {
		a.addError(err)
		return a
	}
	a.file = f
	ix, m, err := check(f)
	a.ix = ix
	if err != nil {
		a.addError(err)
		return a
	}
	a.model = m
	for _, w := range spec.Vet(f, m) {
		a.diags = append(a.diags, diagnostic{
			Range: d.tokenRange(w.Pos), Severity: severityWarning, Source: "wrapcheck vet", Message: w.Msg,
		})
	}
	return a
}

// addError turns a front-end error into diagnostics.
func (a *analysis) addError(err error) {
	var list syntax.ErrorList
	if !errors.As(err, &list) {
		var one *syntax.Error
		if errors.As(err, &one) {
			list = syntax.ErrorList{one}
		}
	}
	if len(list) == 0 {
		a.diags = append(a.diags, diagnostic{Severity: severityError, Source: "wrapcheck", Message: err.Error()})
		return
	}
	for i, e := range list {
		if i == syntax.MaxErrors {
			break
		}
		dg := diagnostic{Range: a.doc.tokenRange(e.Pos), Severity: severityError, Source: "wrapcheck", Message: e.Msg}
		for _, n := range e.Secondary {
			dg.RelatedInformation = append(dg.RelatedInformation, diagnosticRelatedInformation{
				Location: location{URI: a.doc.uri, Range: a.doc.tokenRange(n.Pos)},
				Message:  n.Msg,
			})
		}
		if fix := suggestion(e.Msg); fix != "" {
			a.fixes[e.Msg] = fix
		}
		a.diags = append(a.diags, dg)
	}
}

// suggestion returns the name in a "(did you mean X?)" hint, or "".
func suggestion(msg string) string {
	_, rest, ok := strings.Cut(msg, "(did you mean ")
	if !ok {
		return ""
	}
	name, _, ok := strings.Cut(rest, "?)")
	if !ok || name == "" {
		return ""
	}
	for i := 0; i < len(name); i++ {
		if !isWordByte(name[i]) {
			return ""
		}
	}
	return name
}
