package lsp

func (s *Server) definition(req *request) (any, *rpcError) {
	a, r, rerr := s.refAt(req)
	if rerr != nil || r == nil {
		return nil, rerr
	}
	if r.obj.Decl == nil {
		return nil, nil // main, the process of the top-level actions: declared nowhere
	}
	return []location{{URI: a.doc.uri, Range: a.doc.nameRange(r.obj.Pos, r.obj.Name)}}, nil
}

func (s *Server) references(req *request) (any, *rpcError) {
	var p referenceParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	a, r, rerr := s.refAt(req)
	if rerr != nil || r == nil {
		return nil, rerr
	}
	out := []location{}
	for _, x := range a.ix.refsTo(r.obj) {
		if x.decl && !p.Context.IncludeDeclaration {
			continue
		}
		out = append(out, location{URI: a.doc.uri, Range: a.doc.nameRange(x.pos, x.name)})
	}
	return out, nil
}
