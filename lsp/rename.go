package lsp

import (
	"context"
	"fmt"
	"sort"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

type renameParams struct {
	textDocumentPositionParams
	NewName string `json:"newName"`
}

// codeRequestFailed is LSP's error code for a request that was valid but
// could not be carried out (a refused rename).
const codeRequestFailed = -32803

func (s *Server) prepareRename(req *request) (any, *rpcError) {
	a, r, rerr := s.refAt(req)
	if rerr != nil || r == nil {
		return nil, rerr
	}
	if msg := unrenamable(r.obj); msg != "" {
		return nil, &rpcError{Code: codeRequestFailed, Message: msg}
	}
	rng := a.doc.nameRange(r.pos, r.name)
	return map[string]any{"range": rng, "placeholder": r.name}, nil
}

// rename renames a declared name and every use of it. It is refused when
// the new name is not a name, is reserved, or would collide with or be
// captured by another declaration; as a last guard, the renamed text is
// resolved again and must refer to one declaration at exactly the edited
// places, and must still check when the old text did.
func (s *Server) rename(req *request) (any, *rpcError) {
	var p renameParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	a, r, rerr := s.refAt(req)
	if rerr != nil {
		return nil, rerr
	}
	if r == nil {
		return nil, &rpcError{Code: codeRequestFailed, Message: "no name to rename here"}
	}
	fail := func(format string, args ...any) (any, *rpcError) {
		return nil, &rpcError{Code: codeRequestFailed, Message: fmt.Sprintf(format, args...)}
	}
	name := p.NewName
	if !isName(name) {
		return fail("%q is not a name", name)
	}
	if syntax.IsKeyword(name) || name == "result" || name == "card" {
		return fail("%s is reserved", name)
	}
	if msg := unrenamable(r.obj); msg != "" {
		return fail("%s", msg)
	}
	if name == r.obj.Name {
		return map[string]any{"changes": map[string][]textEdit{}}, nil
	}
	if other := a.ix.conflict(r.obj, name); other != nil {
		return fail("cannot rename %s to %s: it would collide with the %s %s declared at %d:%d",
			r.obj.Name, name, other.Kind, other.Name, other.Pos.Line, other.Pos.Col)
	}
	refs := a.ix.refsTo(r.obj)
	var edits []textEdit
	for _, x := range refs {
		edits = append(edits, textEdit{Range: a.doc.nameRange(x.pos, x.name), NewText: name})
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.AnalysisTimeout)
	defer cancel()
	if msg := verifyRename(ctx, a, edits, name); msg != "" {
		return fail("cannot rename %s to %s: %s", r.obj.Name, name, msg)
	}
	return map[string]any{"changes": map[string][]textEdit{a.doc.uri: edits}}, nil
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

// unrenamable returns why o cannot be renamed, or "".
func unrenamable(o *spec.Object) string {
	switch {
	case o.Kind == spec.ObjResult:
		return "result is the agent's answer and cannot be renamed"
	case o.Decl == nil:
		return o.Name + " is not declared in the spec and cannot be renamed"
	}
	return ""
}

// conflict returns a declaration that obj renamed to name would collide
// with or be captured by, or nil.
func (ix *index) conflict(obj *spec.Object, name string) *spec.Object {
	for _, o := range ix.objs {
		if o == obj || o.Name != name {
			continue
		}
		switch {
		case obj.Kind == spec.ObjField || o.Kind == spec.ObjField:
			if obj.Kind == spec.ObjField && o.Kind == spec.ObjField && o.Owner == obj.Owner {
				return o
			}
		case obj.Kind == spec.ObjAction || o.Kind == spec.ObjAction:
			if obj.Kind == spec.ObjAction && o.Kind == spec.ObjAction && o.Owner == obj.Owner {
				return o
			}
		case isCheck(obj) || isCheck(o):
			if isCheck(obj) && isCheck(o) {
				return o
			}
		default:
			// Two value names: a clash when either's scope holds a
			// use of the other, or both are global, or both live in one
			// process.
			if ix.isGlobal(obj) && ix.isGlobal(o) || obj.Kind == spec.ObjLocal && o.Kind == spec.ObjLocal && obj.Owner == o.Owner {
				return o
			}
			if ix.visibleAtAnyRef(o, obj) || ix.visibleAtAnyRef(obj, o) {
				return o
			}
		}
	}
	return nil
}

// isCheck reports whether o is an invariant or a property (they share
// one namespace).
func isCheck(o *spec.Object) bool { return o.Kind == spec.ObjInvariant || o.Kind == spec.ObjProperty }

// visibleAtAnyRef reports whether the scope of o holds a reference to s
// (so that renaming s to o's name would let o capture it).
func (ix *index) visibleAtAnyRef(o, s *spec.Object) bool {
	from, to, local := span(o)
	_, _, sLocal := span(s)
	for _, r := range ix.refsTo(s) {
		if local && !before(r.pos, from) && !before(to, r.pos) {
			return true
		}
		if p, ok := o.Owner.(*syntax.ProcessDecl); ok && o.Kind == spec.ObjLocal && !before(r.pos, p.Pos) && !before(p.End, r.pos) {
			return true
		}
		if ix.isGlobal(o) && sLocal {
			return true
		}
	}
	return false
}

// verifyRename applies edits to the document and resolves it again: the
// edited places must all refer to one declaration with exactly those
// references, and a spec that checked must still check.
func verifyRename(ctx context.Context, a *analysis, edits []textEdit, name string) string {
	sorted := append([]textEdit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool {
		return a.doc.offset(sorted[i].Range.Start) > a.doc.offset(sorted[j].Range.Start)
	})
	d := a.doc
	for _, e := range sorted {
		r := e.Range
		d = d.apply(d.version, textDocumentContentChangeEvent{Range: &r, Text: e.NewText})
	}
	f, err := syntax.Parse(uriPath(d.uri), []byte(d.text))
	if err != nil {
		return "the renamed spec does not parse"
	}
	ix, _, err := check(ctx, f)
	var target *spec.Object
	got := 0
	for _, e := range edits {
		start := shifted(edits, e, len(name))
		r := ix.at(d.specPos(start))
		if r == nil || r.name != name {
			return "a renamed use no longer resolves"
		}
		if target == nil {
			target = r.obj
		} else if r.obj != target {
			return "the renamed uses would refer to different declarations"
		}
		got++
	}
	if target == nil || len(ix.refsTo(target)) != got {
		return "another use would refer to the renamed declaration"
	}
	if a.model != nil && err != nil {
		return "the renamed spec no longer checks"
	}
	return ""
}

// shifted returns where edit e starts after every edit before it on its
// line replaced its range by n UTF-16 units.
func shifted(edits []textEdit, e textEdit, n int) position {
	p := e.Range.Start
	for _, o := range edits {
		if o.Range.Start.Line == p.Line && o.Range.Start.Character < e.Range.Start.Character {
			p.Character += n - (o.Range.End.Character - o.Range.Start.Character)
		}
	}
	return p
}
