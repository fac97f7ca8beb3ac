package lsp

// codeAction offers the quick fixes of the diagnostics in the request's
// context: an undefined name with a near miss is replaced by it.
func (s *Server) codeAction(req *request) (any, *rpcError) {
	var p codeActionParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	a, _, rerr := s.lookup(req, p.TextDocument.URI)
	if rerr != nil {
		return nil, rerr
	}
	out := []codeAction{}
	for _, dg := range p.Context.Diagnostics {
		name, ok := a.fixes[dg.Message]
		if !ok {
			continue
		}
		out = append(out, codeAction{
			Title:       "Change to " + name,
			Kind:        "quickfix",
			Diagnostics: []diagnostic{dg},
			IsPreferred: true,
			Edit:        workspaceEdit{Changes: map[string][]textEdit{a.doc.uri: {{Range: dg.Range, NewText: name}}}},
		})
	}
	return out, nil
}
