package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// A validator for the subset of JSON Schema (draft 2020-12) that
// docs/json-schema*.json and report/testdata/sarif-2.1.0-subset.json use.
// A keyword outside the subset is an error, so a schema can never lean on
// a check this validator silently skips.

type schema struct {
	root any
}

func loadSchema(t *testing.T, path string) *schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := decodeJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &schema{root: root}
}

func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return x, nil
}

// validate returns the violations of x against the schema, one line each.
func (s *schema) validate(x any) []string {
	var errs []string
	s.check(s.root, x, "$", &errs)
	return errs
}

var annotations = map[string]bool{"$schema": true, "$id": true, "id": true, "title": true, "description": true,
	"$comment": true, "$defs": true, "definitions": true, "default": true,
	// format is an annotation unless a validator opts in (draft-04 and
	// 2020-12 both allow that); we do not check it.
	"format": true}

func (s *schema) check(sch any, x any, path string, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, path+": "+fmt.Sprintf(format, args...))
	}
	switch sch := sch.(type) {
	case bool:
		if !sch {
			fail("no value is allowed here")
		}
		return
	case map[string]any:
		keys := make([]string, 0, len(sch))
		for k := range sch {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			kw := sch[k]
			switch k {
			case "$ref":
				s.check(s.resolve(kw.(string)), x, path, errs)
			case "type":
				var types []string
				switch kw := kw.(type) {
				case string:
					types = []string{kw}
				case []any:
					for _, t := range kw {
						types = append(types, t.(string))
					}
				}
				ok := false
				for _, t := range types {
					ok = ok || hasType(x, t)
				}
				if !ok {
					fail("want type %s, found %s", strings.Join(types, " or "), typeOf(x))
				}
			case "const":
				if !reflect.DeepEqual(kw, x) {
					fail("want %v, found %v", kw, x)
				}
			case "enum":
				ok := false
				for _, e := range kw.([]any) {
					ok = ok || reflect.DeepEqual(e, x)
				}
				if !ok {
					fail("%v is not one of %v", x, kw)
				}
			case "required":
				if obj, ok := x.(map[string]any); ok {
					for _, r := range kw.([]any) {
						if _, ok := obj[r.(string)]; !ok {
							fail("missing required member %q", r)
						}
					}
				}
			case "properties":
				if obj, ok := x.(map[string]any); ok {
					for name, sub := range kw.(map[string]any) {
						if v, ok := obj[name]; ok {
							s.check(sub, v, path+"."+name, errs)
						}
					}
				}
			case "additionalProperties":
				if obj, ok := x.(map[string]any); ok {
					props, _ := sch["properties"].(map[string]any)
					names := make([]string, 0, len(obj))
					for name := range obj {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						if _, declared := props[name]; !declared {
							s.check(kw, obj[name], path+"."+name, errs)
						}
					}
				}
			case "items":
				if arr, ok := x.([]any); ok {
					for i, el := range arr {
						s.check(kw, el, fmt.Sprintf("%s[%d]", path, i), errs)
					}
				}
			case "uniqueItems":
				if arr, ok := x.([]any); ok && kw == true {
					for i := range arr {
						for j := i + 1; j < len(arr); j++ {
							if reflect.DeepEqual(arr[i], arr[j]) {
								fail("items %d and %d are equal, the schema wants unique items", i, j)
							}
						}
					}
				}
			case "oneOf":
				n := 0
				for _, sub := range kw.([]any) {
					var e []string
					s.check(sub, x, path, &e)
					if len(e) == 0 {
						n++
					}
				}
				if n != 1 {
					fail("matches %d alternatives of oneOf, want exactly 1", n)
				}
			case "minItems":
				if arr, ok := x.([]any); ok && int64(len(arr)) < intOf(kw) {
					fail("want at least %v items, found %d", kw, len(arr))
				}
			case "maxItems":
				if arr, ok := x.([]any); ok && int64(len(arr)) > intOf(kw) {
					fail("want at most %v items, found %d", kw, len(arr))
				}
			case "propertyNames":
				if obj, ok := x.(map[string]any); ok {
					names := make([]string, 0, len(obj))
					for name := range obj {
						names = append(names, name)
					}
					sort.Strings(names)
					for _, name := range names {
						s.check(kw, name, path+"."+name+"(name)", errs)
					}
				}
			case "minLength":
				if str, ok := x.(string); ok && int64(len([]rune(str))) < intOf(kw) {
					fail("want at least %v characters", kw)
				}
			case "minimum", "maximum":
				if n, ok := x.(json.Number); ok {
					a, _ := new(big.Float).SetString(n.String())
					b, _ := new(big.Float).SetString(kw.(json.Number).String())
					if c := a.Cmp(b); k == "minimum" && c < 0 || k == "maximum" && c > 0 {
						fail("%v is beyond the %s %v", n, k, kw)
					}
				}
			case "pattern":
				if str, ok := x.(string); ok && !regexp.MustCompile(kw.(string)).MatchString(str) {
					fail("%q does not match %s", str, kw)
				}
			case "anyOf":
				ok := false
				var all []string
				for _, sub := range kw.([]any) {
					var e []string
					s.check(sub, x, path, &e)
					if len(e) == 0 {
						ok = true
						break
					}
					all = append(all, e...)
				}
				if !ok {
					fail("matches no alternative of anyOf: %s", strings.Join(all, "; "))
				}
			default:
				if !annotations[k] {
					fail("schema keyword %q is outside the validated subset", k)
				}
			}
		}
		return
	}
	fail("bad schema %v", sch)
}

func (s *schema) resolve(ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		panic("only local $refs are supported: " + ref)
	}
	var cur any = s.root
	for _, part := range strings.Split(ref[2:], "/") {
		cur = cur.(map[string]any)[part]
	}
	if cur == nil {
		panic("unresolved $ref " + ref)
	}
	return cur
}

func intOf(x any) int64 {
	n, _ := x.(json.Number).Int64()
	return n
}

func hasType(x any, t string) bool {
	switch t {
	case "null":
		return x == nil
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "number":
		_, ok := x.(json.Number)
		return ok
	case "integer":
		n, ok := x.(json.Number)
		if !ok {
			return false
		}
		f, _ := new(big.Float).SetString(n.String())
		return f != nil && f.IsInt()
	}
	panic("unknown type " + t)
}

func typeOf(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", x)
}

// TestValidator checks the validator itself: it must reject what the
// schema forbids, or the schema tests prove nothing.
func TestValidator(t *testing.T) {
	s := &schema{}
	var err error
	s.root, err = decodeJSON([]byte(`{
		"type": "object", "required": ["a"], "additionalProperties": false,
		"properties": {
			"a": {"enum": ["x", "y"]},
			"n": {"type": "integer", "minimum": 0},
			"l": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/v"}},
			"o": {"anyOf": [{"type": "null"}, {"const": 1}]}
		},
		"$defs": {"v": {"type": ["string", "boolean"]}}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"valid", `{"a": "x", "n": 3, "l": ["s", true], "o": null}`, true},
		{"const", `{"a": "y", "o": 1}`, true},
		{"missing", `{"n": 3}`, false},
		{"renamed", `{"a": "x", "N": 3}`, false},
		{"enum", `{"a": "z"}`, false},
		{"integer", `{"a": "x", "n": 1.5}`, false},
		{"minimum", `{"a": "x", "n": -1}`, false},
		{"items", `{"a": "x", "l": [1]}`, false},
		{"minItems", `{"a": "x", "l": []}`, false},
		{"anyOf", `{"a": "x", "o": 2}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := decodeJSON([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			errs := s.validate(x)
			if (len(errs) == 0) != tt.ok {
				t.Errorf("valid = %v, want %v: %v", len(errs) == 0, tt.ok, errs)
			}
		})
	}
}
