package report

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// RenderSimulation writes the result of a simulation (`wrapcheck
// simulate`) for people: the violation found, as [TextOptions.Render]
// writes a violation, the walk that found it, the statement that the
// result is not exhaustive, the properties left unchecked and the
// figures of the walks.
func (o TextOptions) RenderSimulation(w io.Writer, m *spec.Model, res *simulate.Result) error {
	var b strings.Builder
	walks := verdict.Plural(int(res.Stats.Walks), "walk")
	run := fmt.Sprintf("seed %d", res.Seed)
	if res.Shards > 1 {
		run += fmt.Sprintf(", shard %d/%d", res.Shard, res.Shards)
	}
	if v := res.Violation; v != nil {
		o.writeViolation(&b, m, v)
		fmt.Fprintf(&b, "\nthe shortest violation in %s of at most %d steps (%s): walk %d\n", walks, res.Depth, run, res.Walk)
		b.WriteString("simulation is not exhaustive: check may find a shorter trace or other violations\n")
	} else {
		why := ""
		switch res.Reason {
		case "timeout":
			why = " before the timeout"
		case "interrupted":
			why = " before the interrupt"
		case "memory budget":
			why = " before the memory budget"
		}
		b.WriteString(o.paint(ansiYellow, fmt.Sprintf("%s: no violation found in %s of at most %d steps (%s)%s", Escape(m.Name), walks, res.Depth, run, why)) + "\n")
		b.WriteString("simulation is not exhaustive: the states no walk reached are unchecked\n")
	}
	if len(res.Unchecked) > 0 {
		fmt.Fprintf(&b, "\nnote: simulate does not check properties; not checked: %s\n", Escape(strings.Join(propertyTitles(res.Unchecked), ", ")))
	}
	s := res.Stats
	word := "workers"
	if s.Workers == 1 {
		word = "worker"
	}
	fmt.Fprintf(&b, "\n%s, %s, longest walk %d, %.3f s, %d %s\n", walks, verdict.Plural(int(s.Steps), "step"), s.Depth, s.Seconds, s.Workers, word)
	_, err := io.WriteString(w, b.String())
	return err
}

// RenderSimulation writes the result of a simulation as one JSON object
// (docs/json-schema-simulate.json), followed by a newline.
// "exhaustive" is always false.
func (o JSONOptions) RenderSimulation(w io.Writer, m *spec.Model, res *simulate.Result) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	field(&b, "format", strconv.Itoa(FormatVersion))
	field(&b, "spec", jsonString(m.Name))
	field(&b, "mode", jsonString("simulate"))
	field(&b, "exhaustive", "false")
	field(&b, "verdict", jsonString(res.Verdict.String()))
	field(&b, "reason", jsonString(res.Reason))
	b.WriteString(`  "violation": `)
	if res.Violation != nil {
		violationJSON(&b, m, res.Violation, "  ")
		b.WriteString(",\n")
		field(&b, "walk", strconv.FormatInt(res.Walk, 10))
	} else {
		b.WriteString("null,\n")
		field(&b, "walk", "null")
	}
	field(&b, "seed", strconv.FormatUint(res.Seed, 10))
	if res.Walks > 0 {
		field(&b, "walks", strconv.FormatInt(res.Walks, 10))
	} else {
		field(&b, "walks", "null")
	}
	field(&b, "depth", strconv.Itoa(res.Depth))
	field(&b, "shard", `{"index": `+strconv.Itoa(res.Shard)+`, "count": `+strconv.Itoa(res.Shards)+"}")
	field(&b, "unchecked_properties", jsonStrings(res.Unchecked))
	s := res.Stats
	b.WriteString(`  "stats": {"walks": ` + strconv.FormatInt(s.Walks, 10) +
		`, "steps": ` + strconv.FormatInt(s.Steps, 10) +
		`, "depth": ` + strconv.Itoa(s.Depth) +
		`, "ends": ` + strconv.FormatInt(s.Ends, 10) +
		`, "seconds": ` + strconv.FormatFloat(s.Seconds, 'f', 3, 64) +
		`, "workers": ` + strconv.Itoa(s.Workers) + "}\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}
