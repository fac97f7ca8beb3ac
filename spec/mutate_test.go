package spec

import (
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

var tokenRx = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|[0-9]+|:=|\.\.|==|!=|<=|>=|=>|//[^\n]*|\s+|.`)

// TestMutations checks specs made by replacing, deleting or duplicating
// one token of the ok specs: Check must not panic, and a spec that checks
// must pass the internal validation (no "internal error").
func TestMutations(t *testing.T) {
	files := okSpecs(t)
	if g := os.Getenv("MUTATIONS_GLOB"); g != "" {
		files, _ = filepath.Glob(g)
	}
	n := 400
	if os.Getenv("MUTATIONS") != "" {
		n = 6000
	}
	if testenv.Short(t) {
		n = 50
	}
	for _, fn := range files {
		src, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		toks := tokenRx.FindAllString(string(src), -1)
		var words []int
		for i, tok := range toks {
			if strings.TrimSpace(tok) != "" && !strings.HasPrefix(tok, "//") {
				words = append(words, i)
			}
		}
		rng := rand.New(rand.NewSource(int64(len(src))))
		for k := 0; k < n; k++ {
			mut := append([]string(nil), toks...)
			for m := 0; m <= rng.Intn(3); m++ {
				i := words[rng.Intn(len(words))]
				switch rng.Intn(3) {
				case 0:
					mut[i] = toks[words[rng.Intn(len(words))]]
				case 1:
					mut[i] = ""
				case 2:
					mut[i] = mut[i] + " " + toks[words[rng.Intn(len(words))]]
				}
			}
			text := strings.Join(mut, "")
			f, err := syntax.Parse(fn, []byte(text))
			if err != nil {
				continue
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic %v on:\n%s", r, text)
					}
				}()
				m, err := Check(f, Options{})
				if err != nil && strings.Contains(err.Error(), "internal error") {
					t.Fatalf("%v on:\n%s", err, text)
				}
				if err == nil {
					Vet(f, m)
				}
			}()
		}
	}
}
