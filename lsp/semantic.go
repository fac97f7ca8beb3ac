package lsp

import (
	"sort"

	"github.com/wrapcheck/wrapcheck/spec"
)

// semanticTokenTypes is the legend of the semantic tokens, in the order of
// their indexes.
var semanticTokenTypes = []string{"namespace", "type", "enumMember", "variable", "parameter", "function", "property", "method", "interface", "typeParameter", "event"}

const (
	tokNamespace = iota
	tokType
	tokEnumMember
	tokVariable
	tokParameter
	tokFunction
	tokProperty
	tokMethod
	tokInterface
	tokTypeParameter
	tokEvent
)

// semanticTokenModifiers is the legend of the modifiers (bit i is
// modifier i).
var semanticTokenModifiers = []string{"declaration", "readonly"}

// semanticTokens classifies every resolved name of the document (the
// TextMate grammar colours keywords, literals and operators).
func (s *Server) semanticTokens(req *request) (any, *rpcError) {
	a, rerr := s.document(req)
	if rerr != nil {
		return nil, rerr
	}
	data := []int{}
	if a.ix == nil {
		return map[string]any{"data": data}, nil
	}
	refs := append([]ref(nil), a.ix.refs...)
	sort.SliceStable(refs, func(i, j int) bool { return before(refs[i].pos, refs[j].pos) })
	prevLine, prevChar := 0, 0
	var last ref
	for i, r := range refs {
		if !r.pos.IsValid() || i > 0 && r.pos.Line == last.pos.Line && r.pos.Col == last.pos.Col {
			continue
		}
		last = r
		rng := a.doc.nameRange(r.pos, r.name)
		if rng.End.Line != rng.Start.Line || rng.End.Character <= rng.Start.Character {
			continue
		}
		mods := 0
		if r.decl {
			mods |= 1
		}
		if r.obj.Kind == spec.ObjConst || r.obj.Kind == spec.ObjMember {
			mods |= 2
		}
		dl := rng.Start.Line - prevLine
		dc := rng.Start.Character
		if dl == 0 {
			dc -= prevChar
		}
		data = append(data, dl, dc, rng.End.Character-rng.Start.Character, lspKinds[r.obj.Kind].token, mods)
		prevLine, prevChar = rng.Start.Line, rng.Start.Character
	}
	return map[string]any{"data": data}, nil
}
