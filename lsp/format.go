package lsp

import "github.com/wrapcheck/wrapcheck/spec/syntax"

// formatting returns one edit that replaces the document with the
// canonical layout of `wrapcheck fmt`, no edit when it is already
// formatted, and null when it does not parse.
func (s *Server) formatting(req *request) (any, *rpcError) {
	var p formattingParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	a, _, rerr := s.lookup(req, p.TextDocument.URI)
	if rerr != nil || a.file == nil {
		return nil, rerr
	}
	out := string(syntax.Format(a.file))
	if out == a.doc.text {
		return []textEdit{}, nil
	}
	return []textEdit{{Range: lspRange{Start: position{}, End: a.doc.end()}, NewText: out}}, nil
}
