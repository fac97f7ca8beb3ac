package engine

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWatch evaluates watches on the trace of a check (op "check") and on
// a trace the page sends back (op "watch"): the values are check
// --watch's at each step, a refused watch carries its error at its
// position and leaves the spec and the other watches alone.
func TestWatch(t *testing.T) {
	src := toctou(t)
	good := []string{"content + 1", "10 / content", "released and shipped != approved"}
	values := []Watch{
		{Expr: "content + 1", Values: []string{"1", "1", "2", "2"}},
		{Expr: "10 / content", Values: []string{"error: division by zero", "error: division by zero", "10", "10"}},
		{Expr: "released and shipped != approved", Values: []string{"false", "false", "false", "true"}},
	}
	check := Run(context.Background(), Request{Op: "check", Source: src, Watches: good}, nil)
	if len(check.Errors) > 0 {
		t.Fatalf("check: %v", check.Errors)
	}
	if diff := cmp.Diff(values, check.Watches); diff != "" {
		t.Errorf("check's watches (-want +got):\n%s", diff)
	}
	again := Run(context.Background(), Request{Op: "watch", Source: src, Watches: good, Trace: check.TraceSlots}, nil)
	if diff := cmp.Diff(values, again.Watches); diff != "" || len(again.Errors) > 0 {
		t.Errorf("op watch (-want +got):\n%s%v", diff, again.Errors)
	}

	tests := []struct {
		name    string
		watches []string
		want    []string // per watch: its error's text, or its values joined by "|"
	}{
		{"undefined", []string{"content + 1", "contnet"}, []string{"1|1|2|2", "watch:2:1: undefined: contnet (did you mean content?)"}},
		{"syntax", []string{"content +", "granted"}, []string{"watch:1:10: expected expression, found EOF", "false|true|true|true"}},
		{"type", []string{"granted + 1"}, []string{"watch:1:1: invalid operation: granted + 1 (mismatched types bool and int)"}},
		{"two lines", []string{"content\n+ 1"}, []string{"watch:1:1: an expression is one line"}},
		{"every watch refused", []string{"nope", "content +"}, []string{"watch:1:1: undefined: nope", "watch:2:10: expected expression, found EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, op := range []string{"check", "watch"} {
				r := Run(context.Background(), Request{Op: op, Source: src, Watches: tt.watches, Trace: check.TraceSlots}, nil)
				if len(r.Errors) > 0 {
					t.Fatalf("%s: the spec is rejected: %v", op, r.Errors)
				}
				var got []string
				for i, w := range r.Watches {
					if w.Expr != tt.watches[i] {
						t.Errorf("%s: watch %d is %q, want %q", op, i, w.Expr, tt.watches[i])
					}
					if w.Error != nil {
						got = append(got, w.Error.Text)
					} else {
						got = append(got, strings.Join(w.Values, "|"))
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", op, diff)
				}
			}
		})
	}

	// the spec's own error rejects it, whatever the watches
	r := Run(context.Background(), Request{Op: "check", Name: "x.wrap", Source: "spec X\nvar x: bool = y\n", Watches: []string{"x"}}, nil)
	if len(r.Errors) != 1 || r.Errors[0].Text != "x.wrap:2:15: undefined: y" {
		t.Errorf("a spec error: %+v", r.Errors)
	}
	// a trace of another spec
	r = Run(context.Background(), Request{Op: "watch", Source: src, Watches: good, Trace: [][]int64{{1, 2}}}, nil)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Text, "state 0 has 2 slots, the spec 5 (was the spec edited?)") {
		t.Errorf("a trace of another spec: %+v", r.Errors)
	}
	r = Run(context.Background(), Request{Op: "watch", Source: src, Watches: good, Trace: [][]int64{{0, 0, 0, 0, 0}, {99, 0, 0, 0, 0}}}, nil)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Text, "state 1: slot 0 holds 99, outside its domain") {
		t.Errorf("a state outside the spec's domains: %+v", r.Errors)
	}
	r = Run(context.Background(), Request{Op: "check", Source: src, Watches: make([]string, MaxWatches+1)}, nil)
	if len(r.Errors) != 1 || r.Errors[0].Text != "33 watches: at most 32" {
		t.Errorf("too many watches: %+v", r.Errors)
	}
}

// TestWatchExamples: op watch accepts the trace of every example's check
// (its states are in the slots' domains) and gives a value per step.
func TestWatchExamples(t *testing.T) {
	traced := 0
	for _, c := range exampleCases(t) {
		t.Run(c.path, func(t *testing.T) {
			b, err := os.ReadFile("../../examples/" + c.path)
			if err != nil {
				t.Fatal(err)
			}
			check := Run(context.Background(), Request{Op: "check", Source: string(b), Defines: c.defines}, nil)
			if len(check.Errors) > 0 || len(check.TraceSlots) == 0 {
				return // holds, or rejected: no trace
			}
			traced++
			r := Run(context.Background(), Request{Op: "watch", Source: string(b), Defines: c.defines, Watches: []string{"1 + 1"}, Trace: check.TraceSlots}, nil)
			if len(r.Errors) > 0 || len(r.Watches) != 1 || len(r.Watches[0].Values) != len(check.TraceSlots) {
				t.Errorf("op watch on the check's trace: %+v %+v", r.Errors, r.Watches)
			}
		})
	}
	if traced < 10 {
		t.Errorf("%d examples have a trace, want at least 10", traced)
	}
}
