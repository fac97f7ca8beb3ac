package syntax

// The words of the language, in one table: the lexer's reserved words
// are read from it, and so are the language server's completion and the
// tests that hold the editors' grammars to it (editors/, lsp/). A new
// word, reserved or not, goes here.

// WordKind says how the language uses a word.
type WordKind uint8

const (
	// Reserved is a keyword: never a name.
	Reserved WordKind = iota
	// Contextual is a word with a meaning in one place only (`then` in
	// `if c then a else b`, `for` before a name, `rate` at the start of
	// a declaration) and a name everywhere else.
	Contextual
	// Builtin is a predeclared function (`card`, `len`): a name a spec may
	// declare again, its own declaration then winning.
	Builtin
	// Predeclared is a name the checker declares in one scope (`result`,
	// the answer in an agent's assume).
	Predeclared
)

func (k WordKind) String() string {
	return [...]string{"reserved", "contextual", "builtin", "predeclared"}[k]
}

// Word is a word of the language and how it is used.
type Word struct {
	Name string
	Kind WordKind
}

// words lists every word, in the order of docs/language.md's lists.
var words = [...]Word{
	{"spec", Reserved}, {"const", Reserved}, {"type", Reserved}, {"var", Reserved}, {"fn", Reserved},
	{"agent", Reserved}, {"process", Reserved}, {"action", Reserved}, {"when", Reserved}, {"init", Reserved},
	{"invariant", Reserved}, {"property", Reserved}, {"fairness", Reserved}, {"weak", Reserved},
	{"strong", Reserved}, {"terminal", Reserved}, {"let", Reserved}, {"ask", Reserved}, {"choose", Reserved},
	{"in", Reserved}, {"where", Reserved}, {"if", Reserved}, {"else", Reserved}, {"match", Reserved},
	{"assert", Reserved}, {"skip", Reserved}, {"bool", Reserved}, {"symmetric", Reserved}, {"record", Reserved},
	{"set", Reserved}, {"of", Reserved}, {"true", Reserved}, {"false", Reserved}, {"and", Reserved},
	{"or", Reserved}, {"not", Reserved}, {"implies", Reserved}, {"forall", Reserved}, {"exists", Reserved},
	{"count", Reserved}, {"always", Reserved}, {"eventually", Reserved}, {"next", Reserved}, {"until", Reserved},
	{"release", Reserved}, {"weakuntil", Reserved}, {"leadsto", Reserved},
	{"once", Reserved}, {"historically", Reserved}, {"previously", Reserved}, {"since", Reserved},
	// contextual: read as keywords only where their form can start
	{"then", Contextual}, {"assume", Contextual}, {"union", Contextual}, {"minus", Contextual},
	{"intersect", Contextual}, {"subset", Contextual},
	{"mod", Contextual}, {"for", Contextual}, {"sum", Contextual}, {"min", Contextual}, {"max", Contextual},
	{"seq", Contextual},
	{"rate", Contextual}, {"probability", Contextual}, {"cost", Contextual}, {"expected", Contextual},
	{"within", Contextual}, {"bound", Contextual},
	// builtin functions
	{"card", Builtin}, {"len", Builtin}, {"head", Builtin}, {"tail", Builtin}, {"append", Builtin},
	{"concat", Builtin},
	{"result", Predeclared},
}

// Words returns every word of the language, reserved or not, with its
// kind, in a fresh slice.
func Words() []Word { return append([]Word(nil), words[:]...) }

// keywords are the reserved words, from words.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		if w.Kind == Reserved {
			m[w.Name] = true
		}
	}
	return m
}()
