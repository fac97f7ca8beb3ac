package engine

import (
	"bytes"
	"context"
	"math"
	"math/big"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestProbPanelEnds runs the playground's prob.js under node on the JSON
// of `wrapcheck prob` (report.QuantJSON) for the ends the text report
// words specially: an expected cost whose upper bound interval iteration
// did not certify (the JSON has its lower bound alone) is shown
// `[lo, infinity]` as the text prints it, and a range over the counts
// of which a limit reached one end only shows the other as `?`. It fails
// when the panel prints `undefined` or `NaN` for them, as it did.
func TestProbPanelEnds(t *testing.T) {
	node := needTool(t, "node")
	src := "spec Die\nvar d: 0..6\nagent roll(): 1..6\nrate roll { 1: 1/6; 2: 1/6; 3: 1/6; 4: 1/6; 5: 1/6; 6: 1/6 }\n" +
		"action throw when d < 6 { d := ask roll() }\nterminal d == 6\n" +
		"cost throws { throw: 1 }\nexpected Throws: max throws until d == 6\n"
	m, err := spec.ParseFile("die.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{Interval: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &res.Expectations[0]
	if e.MaxBounds == nil {
		t.Fatalf("no bounds: %+v", e)
	}
	lo := e.MaxBounds.Lo
	e.MaxBounds.Hi = math.Inf(1) // not certified
	// a range over the counts whose least end a limit stopped
	e.Box = &quant.Box{Level: big.NewRat(19, 20), HiBounds: &quant.Interval{Lo: 5, Hi: 7}}
	var js bytes.Buffer
	if err := report.QuantJSON(&js, m, res); err != nil {
		t.Fatal(err)
	}
	script := `import { valueText, rangeText } from ` + strconv.Quote("file://"+mustAbs(t, "../src/prob.js")) + `;
import { readFileSync } from "node:fs";
const r = JSON.parse(readFileSync(0, "utf8"));
for (const e of r.expectations) console.log(valueText(e.max) + " | " + rangeText(e.box));
`
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Stdin = &js
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s%s", err, out, stderrOf(err))
	}
	want := "[" + strconv.FormatFloat(lo, 'g', -1, 64) + ", infinity] | [?, 7] at 95%\n"
	if got := string(out); got != want {
		t.Errorf("the panel's cells:\n got %q\nwant %q\n(JSON %s)", got, want, js.String())
	}
	if strings.Contains(string(out), "undefined") || strings.Contains(string(out), "NaN") {
		t.Errorf("the panel prints %q", out)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// stderrOf returns the standard error an exec.ExitError kept.
func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
