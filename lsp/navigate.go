package lsp

func (s *Server) definition(req *request) (any, *rpcError) {
	a, r, rerr := s.refAt(req)
	if rerr != nil || r == nil {
		return nil, rerr
	}
	return []location{{URI: a.doc.uri, Range: a.doc.nameRange(r.sym.pos, r.sym.name)}}, nil
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
	for _, x := range a.ix.refsTo(r.sym) {
		if x.decl && !p.Context.IncludeDeclaration {
			continue
		}
		out = append(out, location{URI: a.doc.uri, Range: a.doc.nameRange(x.pos, x.name)})
	}
	return out, nil
}
