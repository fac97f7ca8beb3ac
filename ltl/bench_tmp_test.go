package ltl

import (
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

func TestTmpProfile(t *testing.T) {
	src, _ := os.ReadFile("/work/main/examples/peers/pipeline_ltl.wrap")
	m, err := spec.ParseFile("p.wrap", src, spec.Options{Defines: map[string]int64{"K": 3, "N": 2}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Check(context.Background(), m, Options{Only: []string{"FailIsResolved"}})
	t.Log(r.Verdict, r.Stats.States, err)
}
