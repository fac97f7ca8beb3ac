// Package docs holds the user documentation and the test that keeps it
// true: every command shown in the docs is run, and its output must be
// the output shown.
//
// # The rules
//
// The test reads every docs/*.md, every design note (docs/design/*.md) and
// the repository's README.md.
//
// A fenced block whose info string is "console" is a session:
//
//	```console
//	$ wrapcheck check docs/testdata/tutorial/gate.wrap
//	<expected output>
//	```
//
// Every line that starts with "$ " is a command; the lines after it, up to
// the next command or the end of the block, are its expected output. Only
// `wrapcheck` commands may appear. A command is split into words as a shell
// would for simple cases (single and double quotes, no expansion), and runs
// from the repository root with a wrapcheck binary built once from
// ./cmd/wrapcheck, NO_COLOR=1 and GITHUB_ACTIONS unset. Its output is
// stdout and stderr as one stream, as on a terminal; a non-zero exit status
// adds a final line "[exit N]".
//
// Timings depend on the machine, so both the expected and the actual output
// are normalised before they are compared: in the text summary line,
// (with its peak heap when there is one)
// ", 0.003 s (20.7k states/s), 2 workers" becomes ", <time>"; in JSON,
// "seconds" and "workers" values become 0; in a sweep's table (check -D
// N=1..6), the time column becomes "<time>"; in prob's last line,
// "seconds: 0.004" becomes "seconds: <time>". Everything else must match
// exactly, including the state and transition counts.
//
// No block that shows a wrapcheck command is skipped silently. A block
// shows one when a line starts with "$ wrapcheck", or, in a sh, shell or
// bash block, with "wrapcheck "; it must be a console block, or carry the
// flag "norun: REASON" after its language (```sh norun: needs an S3
// bucket) when it cannot run here (a server, S3, PRISM, a GPU, the
// machine's own installation). TestCommands counts the norun blocks of
// each document and compares the counts with the table notRun, so that a
// new one is a change to this file, made in review.
//
// A fenced block whose info string is "wrap file=PATH" shows the whole of
// the spec in PATH (relative to the repository root): its text must equal
// the file, so that a reader who types the spec in gets what the commands
// ran.
//
// Relative links in the documents this package owns (see owned) must name
// files that exist.
//
// The test opens every .go, .wrap, go.mod and go.sum file of the repository
// (consultInputs), so that the go test cache reruns it when the tool or a
// spec changes.
//
// WRAPCHECK_UPDATE=1 go test ./docs/ rewrites, in place, every console
// block whose output differs after normalisation (a block that differs only
// in timings is left alone, so updates do not churn), and every wrap block
// from its file.
package docs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// root is the repository root, relative to this package's directory.
const root = ".."

// binary is the wrapcheck command built by TestMain.
var binary string

func TestMain(m *testing.M) {
	os.Exit(mainTest(m))
}

func mainTest(m *testing.M) int {
	dir, err := os.MkdirTemp("", "wrapcheck-docs-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "wrapcheck")
	build := exec.Command("go", "build", "-o", binary, "./cmd/wrapcheck")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/wrapcheck: %v\n%s", err, out)
		return 1
	}
	return testenv.Run(m)
}

// owned lists the documents whose relative links are checked, with every
// design note (docs/design/*.md, see ownedDocs).
var owned = []string{"docs/README.md", "docs/tutorial.md", "docs/safety-vs-liveness.md", "docs/patterns.md", "docs/pipeline.md", "docs/architecture.md", "docs/language.md", "docs/performance.md", "docs/simulate.md", "docs/guard.md", "docs/impl.md", "docs/benchmarks-log.md", "docs/inspect.md", "docs/quantitative.md"}

// ownedDocs returns owned and the design notes, relative to root.
func ownedDocs(t *testing.T) []string {
	t.Helper()
	notes, err := filepath.Glob(filepath.Join(root, "docs", "design", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := append([]string(nil), owned...)
	for _, p := range notes {
		rel, _ := filepath.Rel(root, p)
		docs = append(docs, filepath.ToSlash(rel))
	}
	return docs
}

// documents returns the Markdown files the test reads, relative to root.
func documents(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, p := range paths {
		rel, _ := filepath.Rel(root, p)
		docs = append(docs, filepath.ToSlash(rel))
	}
	notes, err := filepath.Glob(filepath.Join(root, "docs", "design", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range notes {
		rel, _ := filepath.Rel(root, p)
		docs = append(docs, filepath.ToSlash(rel))
	}
	docs = append(docs, "README.md")
	sort.Strings(docs)
	return docs
}

// block is one fenced block of a document.
type block struct {
	info  string // the info string after the opening fence
	line  int    // 1-based line of the opening fence
	start int    // index of the first content line
	end   int    // index of the closing fence
}

// fences returns the fenced blocks of lines (``` fences only).
func fences(lines []string) []block {
	var bs []block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "```") {
			continue
		}
		b := block{info: strings.TrimSpace(strings.TrimPrefix(l, "```")), line: i + 1, start: i + 1}
		j := i + 1
		for j < len(lines) && strings.TrimRight(lines[j], " ") != "```" {
			j++
		}
		b.end = j
		bs = append(bs, b)
		i = j
	}
	return bs
}

// lang returns the block's language: the first word of its info string.
func (b block) lang() string {
	lang, _, _ := strings.Cut(b.info, " ")
	return lang
}

// norun returns the reason after the block's "norun:" flag, and whether
// it has the flag.
func (b block) norun() (string, bool) {
	_, rest, _ := strings.Cut(b.info, " ")
	reason, ok := strings.CutPrefix(strings.TrimSpace(rest), "norun:")
	return strings.TrimSpace(reason), ok
}

// showsCommand reports whether the block's lines show a wrapcheck command.
func showsCommand(lines []string, b block) bool {
	shell := map[string]bool{"sh": true, "shell": true, "bash": true}[b.lang()]
	for _, l := range lines[b.start:b.end] {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "$ wrapcheck") || shell && strings.HasPrefix(l, "wrapcheck ") {
			return true
		}
	}
	return false
}

// notRun is the number of blocks each document marks norun; every other
// block that shows a wrapcheck command is run.
var notRun = map[string]int{
	"docs/distributed.md": 1, // the store's URLs and machines
	"docs/tutorial.md":    1, // go install and wrapcheck version
}

// session is one command of a console block and its expected output.
type session struct {
	cmd  string
	line int      // 1-based line of the command
	want []string // expected output lines
}

func sessions(lines []string, b block) []session {
	var ss []session
	for i := b.start; i < b.end; i++ {
		if cmd, ok := strings.CutPrefix(lines[i], "$ "); ok {
			ss = append(ss, session{cmd: cmd, line: i + 1})
		} else if len(ss) > 0 {
			ss[len(ss)-1].want = append(ss[len(ss)-1].want, lines[i])
		}
	}
	return ss
}

// split splits a command line into words: blanks separate words, single
// and double quotes group (no escapes, no expansion).
func split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// run runs one documented command and returns its output as the docs show
// it: stdout and stderr interleaved, then "[exit N]" when N is not 0.
func run(t *testing.T, command string) string {
	t.Helper()
	words, err := split(command)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if len(words) == 0 || words[0] != "wrapcheck" {
		t.Fatalf("%q: only wrapcheck commands may appear in a console block", command)
	}
	cmd := exec.Command(binary, words[1:]...)
	cmd.Dir = root
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_ACTIONS=") && !strings.HasPrefix(kv, "NO_COLOR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	text := strings.TrimRight(out.String(), "\n")
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if text != "" {
			text += "\n"
		}
		text += fmt.Sprintf("[exit %d]", exit.ExitCode())
	case err != nil:
		t.Fatalf("%s: %v", command, err)
	}
	return text
}

var (
	textTiming = regexp.MustCompile(`, [0-9]+\.[0-9]+ s( \([^)]*\))?, [0-9]+ workers?(, [0-9.]+ [KMG]iB peak heap)?`)
	jsonTiming = regexp.MustCompile(`"seconds": [0-9.e+-]+, "workers": [0-9]+`)
	// the last column of a sweep's table (check -D N=1..6)
	sweepTiming = regexp.MustCompile(`(?m)  [0-9]+\.[0-9]{3} s$`)
	// probTiming is the end of wrapcheck prob's summary line.
	probTiming = regexp.MustCompile(`(?m)^(states: [0-9]+, choices: [0-9]+, transitions: [0-9]+), seconds: [0-9.]+$`)
)

// normalise replaces what depends on the machine by placeholders.
func normalise(s string) string {
	s = textTiming.ReplaceAllString(s, ", <time>")
	s = jsonTiming.ReplaceAllString(s, `"seconds": 0, "workers": 0`)
	s = sweepTiming.ReplaceAllString(s, "  <time>")
	s = probTiming.ReplaceAllString(s, "$1, seconds: <time>")
	return strings.TrimRight(s, "\n")
}

// consultInputs opens every Go source, go.mod, go.sum and .wrap file of the
// repository. The wrapcheck binary and the specs are read by child
// processes, which the go test cache does not see; opening them here makes
// a change to any of them invalidate a cached result of this package.
func consultInputs(t *testing.T) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		switch name := d.Name(); {
		case strings.HasSuffix(name, ".go"), strings.HasSuffix(name, ".wrap"), name == "go.mod", name == "go.sum":
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			f.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCommands runs every command of every console block and compares its
// output with the block.
func TestCommands(t *testing.T) {
	consultInputs(t)
	ran, commands := 0, 0
	marked := map[string]int{}
	for _, doc := range documents(t) {
		t.Run(strings.TrimSuffix(doc, ".md"), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(root, doc))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			var edits []edit
			for _, b := range fences(lines) {
				if reason, ok := b.norun(); ok {
					if reason == "" {
						t.Errorf("%s:%d: norun without a reason", doc, b.line)
					}
					marked[doc]++
					continue
				}
				if b.lang() != "console" {
					if showsCommand(lines, b) {
						t.Errorf("%s:%d: a %q block shows a wrapcheck command: make it a console block, or mark it \"norun: REASON\"", doc, b.line, b.info)
					}
					continue
				}
				if b.info != "console" {
					t.Errorf("%s:%d: console block with the info string %q: only \"norun: REASON\" may follow console", doc, b.line, b.info)
				}
				ss := sessions(lines, b)
				ran++
				commands += len(ss)
				if len(ss) == 0 {
					t.Errorf("%s:%d: console block without a command", doc, b.line)
				}
				var block []string
				changed := false
				for _, s := range ss {
					got := run(t, s.cmd)
					want := strings.Join(s.want, "\n")
					block = append(block, "$ "+s.cmd)
					if normalise(want) == normalise(got) {
						block = append(block, s.want...)
						continue
					}
					changed = true
					block = append(block, strings.Split(got, "\n")...)
					if !golden.Update() {
						t.Errorf("%s:%d: $ %s: output differs (-want +got):\n%s", doc, s.line, s.cmd,
							cmp.Diff(normalise(want), normalise(got)))
					}
				}
				if changed {
					edits = append(edits, edit{b.start, b.end, block})
				}
			}
			rewrite(t, doc, lines, edits)
		})
	}
	if diff := cmp.Diff(notRun, marked); diff != "" {
		t.Errorf("blocks marked norun, per document (-want +got):\n%s", diff)
	}
	n := 0
	for _, k := range marked {
		n += k
	}
	t.Logf("%d console blocks run (%d commands); %d blocks marked norun", ran, commands, n)
}

// TestSpecBlocks checks that every ```wrap file=PATH block shows PATH.
func TestSpecBlocks(t *testing.T) {
	for _, doc := range documents(t) {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		var edits []edit
		for _, b := range fences(lines) {
			lang, attr, _ := strings.Cut(b.info, " ")
			path, ok := strings.CutPrefix(strings.TrimSpace(attr), "file=")
			if lang != "wrap" || !ok {
				continue
			}
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
			if err != nil {
				t.Errorf("%s:%d: %v", doc, b.line, err)
				continue
			}
			want := strings.TrimRight(string(src), "\n")
			got := strings.Join(lines[b.start:b.end], "\n")
			if got == want {
				continue
			}
			if !golden.Update() {
				t.Errorf("%s:%d: the block differs from %s (-file +block):\n%s", doc, b.line, path, cmp.Diff(want, got))
			}
			edits = append(edits, edit{b.start, b.end, strings.Split(want, "\n")})
		}
		rewrite(t, doc, lines, edits)
	}
}

// edit replaces lines[start:end] by repl.
type edit struct {
	start, end int
	repl       []string
}

// rewrite applies edits (in order, not overlapping) to doc when updating.
func rewrite(t *testing.T, doc string, lines []string, edits []edit) {
	t.Helper()
	if !golden.Update() || len(edits) == 0 {
		return
	}
	var out []string
	prev := 0
	for _, e := range edits {
		out = append(out, lines[prev:e.start]...)
		out = append(out, e.repl...)
		prev = e.end
	}
	out = append(out, lines[prev:]...)
	if err := os.WriteFile(filepath.Join(root, doc), []byte(strings.Join(out, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

var link = regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)

// TestLinks checks the relative links of the documents this package owns:
// the file must exist, and a fragment into a Markdown file (the document
// itself for a link of a fragment alone) must name one of its headings
// (as GitHub makes anchors of them).
func TestLinks(t *testing.T) {
	for _, doc := range ownedDocs(t) {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Error(err)
			continue
		}
		for i, l := range strings.Split(string(data), "\n") {
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || target == "" && m[2] == "" {
					continue
				}
				if target == "" { // a heading of this document
					target = filepath.Base(doc)
				}
				p := filepath.Join(root, filepath.Dir(doc), filepath.FromSlash(target))
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s:%d: broken link %s", doc, i+1, target)
					continue
				}
				if frag := strings.TrimPrefix(m[2], "#"); frag != "" && strings.HasSuffix(target, ".md") && !hasAnchor(t, p, frag) {
					t.Errorf("%s:%d: broken link %s%s: no such heading", doc, i+1, target, m[2])
				}
			}
		}
	}
}

// TestTutorialSpecsNamed checks that the tutorial names every spec under
// testdata/tutorial, so that no file there is left unexplained.
func TestTutorialSpecsNamed(t *testing.T) {
	data, err := os.ReadFile("tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("testdata/tutorial/*.wrap")
	for _, f := range files {
		if !bytes.Contains(data, []byte("docs/"+filepath.ToSlash(f))) {
			t.Errorf("tutorial.md does not name docs/%s", filepath.ToSlash(f))
		}
	}
}

// hasAnchor reports whether the Markdown file at path has a heading whose
// GitHub anchor is frag: the heading's text in lower case, without the
// characters other than letters, digits, '_', '-' and spaces, each space
// a '-'.
func hasAnchor(t *testing.T, path, frag string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inFence := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r), unicode.IsNumber(r), r == '_', r == '-':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		if b.String() == frag {
			return true
		}
	}
	return false
}
