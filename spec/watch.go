package spec

import (
	"errors"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// CheckWatched is [Check] with the watches srcs: expressions over one
// state, each on one line, as the playground and the editors' trace
// panel take them. Watch i is parsed as line i+1 of the file name, so its
// errors say which it is ("watch:2:5: undefined: y"), and checked as
// [Options.Watches] are. A watch that does not parse or check is refused,
// not the spec: refused[i] is its first error (nil for one accepted), it
// is left out of the model, and m.Watches holds the accepted ones in
// order. err is an error of the spec itself (opts.Watches is ignored).
func CheckWatched(f *syntax.File, opts Options, name string, srcs []string) (m *Model, refused []*Error, err error) {
	refused = make([]*Error, len(srcs))
	var index []int // index[k]: the watch of opts.Watches[k]
	opts.Watches = nil
	for i, src := range srcs {
		if strings.ContainsAny(src, "\n\r") {
			refused[i] = &Error{Pos: Position{Filename: name, Line: i + 1, Col: 1}, Msg: "an expression is one line"}
			continue
		}
		// i line feeds before it: its positions are on line i+1
		x, err := syntax.ParseExpr(name, []byte(strings.Repeat("\n", i)+src))
		if err != nil {
			refuse(refused, name, err)
			continue
		}
		opts.Watches, index = append(opts.Watches, x), append(index, i)
	}
	for {
		m, err := Check(f, opts)
		if err == nil {
			return m, refused, nil
		}
		// the errors in watches refuse them; any other is the spec's
		if !refuse(refused, name, err) {
			return nil, nil, err
		}
		var keep []syntax.Expr
		var kept []int
		for k, i := range index {
			if refused[i] == nil {
				keep, kept = append(keep, opts.Watches[k]), append(kept, i)
			}
		}
		if len(keep) == len(opts.Watches) {
			return nil, nil, err // no watch refused: the errors are not theirs
		}
		opts.Watches, index = keep, kept
	}
}

// refuse records in refused the first error of each watch that err (a
// front-end error list) places in the file name, and reports whether
// every error of err is in a watch.
func refuse(refused []*Error, name string, err error) bool {
	var list ErrorList
	if !errors.As(err, &list) {
		return false
	}
	all := true
	for _, e := range list {
		i := e.Pos.Line - 1
		if e.Pos.Filename != name || i < 0 || i >= len(refused) {
			all = false
			continue
		}
		if refused[i] == nil {
			refused[i] = e
		}
	}
	return all
}
