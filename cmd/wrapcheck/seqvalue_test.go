package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/web/engine"
)

// seqStorage matches a sequence printed as its storage: the fields len
// and elems of the record that holds it, in any notation.
var seqStorage = regexp.MustCompile(`elems|\blen\b"?:|\.len\b`)

// seqShown matches q's value [b, b] in text, JSON, ITF, escaped JSON or
// Markdown.
var seqShown = regexp.MustCompile(`\\?\[\s*(\\?")?b(\\?")?,\s*(\\?")?b(\\?")?\s*\\?\]`)

// formatsOf returns the values a command's --format takes, read from its
// usage ("output format: text, json or itf ..."); nil when it has none.
func formatsOf(t *testing.T, name string) []string {
	for _, s := range subcommands() {
		if s.name != name {
			continue
		}
		f := s.make().Flags().Lookup("format")
		if f == nil {
			return nil
		}
		usage, ok := strings.CutPrefix(f.Usage, "output format: ")
		if !ok {
			t.Fatalf("%s --format's usage %q does not list the formats", name, f.Usage)
		}
		usage, _, _ = strings.Cut(usage, " (")
		return strings.FieldsFunc(strings.ReplaceAll(usage, " or ", ", "), func(r rune) bool { return r == ',' || r == ' ' })
	}
	t.Fatalf("no command %s", name)
	return nil
}

// TestSequencesPrintAsValues runs every command that shows states, in
// each of its formats (read from the command itself, so that a new
// format or command is covered or fails here), and the playground's
// engine, on a spec with sequences: each must print a sequence as its
// elements ([b, b], ["b", "b"]), never as the len and elems of the
// record that stores it.
func TestSequencesPrintAsValues(t *testing.T) {
	// sequences as a variable, a record's field and an array's element;
	// Short is violated when q is [b, b]
	data, err := os.ReadFile("../../testdata/sequences.wrap")
	if err != nil {
		t.Fatal(err)
	}
	seqSpec := string(data)
	dir := t.TempDir()
	t.Chdir(dir)
	files := map[string]string{
		"q.wrap": seqSpec,
		// the second step records q as [b]: the spec has [b, b]
		"run.jsonl": `{"action": "push", "state": {"q": ["b"], "r": {"n": 0, "s": ["a"]}}}` + "\n" +
			`{"action": "push", "state": {"q": ["b"], "qs": [["b", "b"], []]}}` + "\n",
		"state.json": `{"q": ["b", "b"], "r": {"n": 1, "s": ["b", "b"]}, "qs": [["b", "b"], []]}`,
		// new allows [b, b], old does not
		"old.wrap": strings.Replace(strings.Replace(seqSpec, "len(q) < 2 {", "len(q) < 1 {", 1), "Short: len(q) < 2", "Short: true", 1),
		"new.wrap": strings.Replace(seqSpec, "Short: len(q) < 2", "Short: true", 1),
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the arguments of each command that shows states, after its
	// --format; the commands that show none say why
	// (a run whose first argument is "text" is for the text format alone)
	commands := map[string][][]string{
		"check": {{"q.wrap"}, {"text", "--full-states", "q.wrap"}, {"--watch", "q", "--watch", "r", "q.wrap"},
			{"--explain", "q.wrap"}, {"--continue", "q.wrap"}},
		"worker":   {{"--store", "STORE", "--index", "0", "--workers", "1", "q.wrap"}},
		"simulate": {{"--seed", "1", "--depth", "4", "q.wrap"}},
		"explain":  {{"q.wrap"}},
		"diff":     {{"old.wrap", "new.wrap"}},
		"graph":    {{"q.wrap"}},
		"replay":   {{"q.wrap", "run.jsonl"}},
		"eval": {{"--state", "state.json", "q.wrap", "q"}, {"--state", "state.json", "q.wrap", "r"},
			{"--state", "state.json", "q.wrap", "qs"}, {"--state", "state.json", "q.wrap", "append(tail(q), b)"}},
	}
	noStates := map[string]string{
		"prob": "prints probabilities, and a spec with rates has no sequence in its answers",
	}
	for _, s := range subcommands() {
		formats := formatsOf(t, s.name)
		if formats == nil {
			continue
		}
		runs, ok := commands[s.name]
		if !ok {
			if noStates[s.name] == "" {
				t.Errorf("%s has --format %s: add it to this test with a spec whose values are sequences", s.name, strings.Join(formats, ", "))
			}
			continue
		}
		for _, format := range formats {
			for _, args := range runs {
				if args[0] == "text" {
					if format != "text" {
						continue
					}
					args = args[1:]
				}
				args := append([]string{s.name, "--format", format}, args...)
				if i := slices.Index(args, "STORE"); i >= 0 { // a fresh store a run
					args[i] = "file://" + filepath.ToSlash(t.TempDir())
				}
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					var stdout, stderr bytes.Buffer
					code := run(args, &stdout, &stderr)
					if code == exitUsage {
						t.Fatalf("exit %d: %s", code, stderr.String())
					}
					seqPrinted(t, stdout.String()+stderr.String())
				})
			}
		}
	}
	t.Run("playground", func(t *testing.T) {
		resp := engine.Run(context.Background(), engine.Request{Op: "check", Name: "q.wrap", Source: seqSpec}, nil)
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		seqPrinted(t, string(b))
	})
}

// seqPrinted fails unless out shows the value [b, b] and no sequence's
// storage.
func seqPrinted(t *testing.T, out string) {
	t.Helper()
	if loc := seqStorage.FindStringIndex(out); loc != nil {
		from, to := max(0, loc[0]-60), min(len(out), loc[1]+60)
		t.Errorf("a sequence printed as its storage: …%s…", out[from:to])
	}
	if !seqShown.MatchString(out) {
		t.Errorf("no [b, b] in the output:\n%s", out)
	}
}
