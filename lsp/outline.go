package lsp

import (
	"sort"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

type foldingRange struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Kind      string `json:"kind,omitempty"`
}

// foldingRange returns a range per multi-line block (process, action,
// init, if, choose, match) and multi-line comment.
func (s *Server) foldingRange(req *request) (any, *rpcError) {
	a, rerr := s.document(req)
	if rerr != nil {
		return nil, rerr
	}
	out := []foldingRange{}
	if a.file == nil {
		return out, nil
	}
	add := func(from, to syntax.Position, kind string) {
		if from.IsValid() && to.IsValid() && to.Line > from.Line {
			out = append(out, foldingRange{StartLine: from.Line - 1, EndLine: to.Line - 1, Kind: kind})
		}
	}
	var block func(b *syntax.Block)
	var stmt func(st syntax.Stmt)
	block = func(b *syntax.Block) {
		if b == nil {
			return
		}
		add(b.Pos, b.End, "")
		for _, st := range b.Stmts {
			stmt(st)
		}
	}
	stmt = func(st syntax.Stmt) {
		switch st := st.(type) {
		case *syntax.Block:
			block(st)
		case *syntax.ChooseStmt:
			block(st.Body)
		case *syntax.ForStmt:
			block(st.Body)
		case *syntax.IfStmt:
			block(st.Then)
			if st.Else != nil {
				stmt(st.Else)
			}
		case *syntax.MatchStmt:
			add(st.Pos, st.End, "")
			for _, c := range st.Cases {
				if c.Body != nil {
					stmt(c.Body)
				}
			}
		}
	}
	for _, d := range a.file.Decls {
		switch d := d.(type) {
		case *syntax.ProcessDecl:
			add(d.Pos, d.End, "")
			for _, act := range d.Actions {
				block(act.Body)
			}
		case *syntax.ActionDecl:
			block(d.Body)
		case *syntax.InitDecl:
			block(d.Body)
		}
	}
	for _, c := range a.file.Comments {
		if n := strings.Count(c.Text, "\n"); n > 0 {
			out = append(out, foldingRange{StartLine: c.Pos.Line - 1, EndLine: c.Pos.Line - 1 + n, Kind: "comment"})
		}
	}
	// Runs of line comments (a file's header) fold too.
	for i := 0; i < len(a.file.Comments); {
		j := i
		for j+1 < len(a.file.Comments) && strings.HasPrefix(a.file.Comments[j+1].Text, "//") &&
			a.file.Comments[j+1].Pos.Line == a.file.Comments[j].Pos.Line+1 && a.file.Comments[j+1].Pos.Col == a.file.Comments[i].Pos.Col {
			j++
		}
		if j > i && strings.HasPrefix(a.file.Comments[i].Text, "//") {
			out = append(out, foldingRange{StartLine: a.file.Comments[i].Pos.Line - 1, EndLine: a.file.Comments[j].Pos.Line - 1, Kind: "comment"})
		}
		i = j + 1
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartLine < out[j].StartLine })
	return out, nil
}

type workspaceSymbol struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// workspaceSymbol returns the declarations of every open document whose
// name contains the query (ignoring case), locals of actions excepted.
func (s *Server) workspaceSymbol(req *request) (any, *rpcError) {
	var p struct {
		Query string `json:"query"`
	}
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	s.mu.Lock()
	var uris []string
	sts := map[string]*docState{}
	for uri, st := range s.docs {
		uris = append(uris, uri)
		sts[uri] = st
	}
	s.mu.Unlock()
	sort.Strings(uris)
	q := strings.ToLower(p.Query)
	out := []workspaceSymbol{}
	for _, uri := range uris {
		// The analyses at hand: a document still being analysed (a
		// hostile one, say) does not hold up the answer.
		a := s.ready(sts[uri])
		if a == nil || a.ix == nil {
			continue
		}
		for _, o := range a.ix.objs {
			switch o.Kind {
			case spec.ObjParam, spec.ObjLet, spec.ObjChoose, spec.ObjQuant, spec.ObjIndex, spec.ObjResult:
				continue
			}
			if !strings.Contains(strings.ToLower(o.Name), q) {
				continue
			}
			ws := workspaceSymbol{Name: o.Name, Kind: lspKinds[o.Kind].symbol, Location: location{URI: uri, Range: a.doc.nameRange(o.Pos, o.Name)}}
			if p, ok := o.Owner.(*syntax.ProcessDecl); ok {
				ws.ContainerName = p.Name.Name
			} else if o.Kind == spec.ObjMember && o.Type != nil {
				ws.ContainerName = o.Type.Name
			}
			out = append(out, ws)
		}
	}
	return out, nil
}

type signatureInformation struct {
	Label      string                 `json:"label"`
	Parameters []parameterInformation `json:"parameters"`
}

type parameterInformation struct {
	Label [2]int `json:"label"` // offsets into the signature's label
}

// signatureHelp shows the parameters of the fn or agent whose call
// encloses the cursor, with the one being typed active.
func (s *Server) signatureHelp(req *request) (any, *rpcError) {
	var p textDocumentPositionParams
	if rerr := decode(req.params, &p); rerr != nil {
		return nil, rerr
	}
	cur, good, rerr := s.lookup(req, p.TextDocument.URI)
	if rerr != nil {
		return nil, rerr
	}
	a := cur
	if a.ix == nil {
		a = good
	}
	if a == nil || a.ix == nil {
		return nil, nil
	}
	text := cur.doc.text[:cur.doc.offset(p.Position)]
	name, arg := enclosingCall(text)
	if name == "" {
		return nil, nil
	}
	o := a.ix.info.Global.Lookup(name)
	if o == nil {
		return nil, nil
	}
	var ps []*syntax.Param
	var result syntax.TypeExpr
	switch d := o.Decl.(type) {
	case *syntax.FnDecl:
		ps, result = d.Params, d.Result
	case *syntax.AgentDecl:
		ps, result = d.Params, d.Result
	default:
		return nil, nil
	}
	label := name + "("
	var infos []parameterInformation
	for i, q := range ps {
		if i > 0 {
			label += ", "
		}
		part := q.Name.Name + ": " + typeExprText(q.Type)
		infos = append(infos, parameterInformation{Label: [2]int{utf16Len16(label), utf16Len16(label) + utf16Len16(part)}})
		label += part
	}
	label += "): " + typeExprText(result)
	if infos == nil {
		infos = []parameterInformation{}
	}
	return map[string]any{
		"signatures":      []signatureInformation{{Label: label, Parameters: infos}},
		"activeSignature": 0,
		"activeParameter": arg,
	}, nil
}

func utf16Len16(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}

// enclosingCall returns the name before the innermost unclosed "(" at
// the end of text, and the index of the argument being typed.
func enclosingCall(text string) (string, int) {
	depth, arg := 0, 0
	for i := len(text) - 1; i >= 0; i-- {
		switch text[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				return "", 0
			}
			depth--
		case ',':
			if depth == 0 {
				arg++
			}
		case '\n':
			// Calls do not span declarations; a blank line ends the search.
			if i > 0 && text[i-1] == '\n' {
				return "", 0
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			j := i
			for j > 0 && text[j-1] == ' ' {
				j--
			}
			k := j
			for k > 0 && isWordByte(text[k-1]) {
				k--
			}
			return text[k:j], arg
		}
	}
	return "", 0
}
