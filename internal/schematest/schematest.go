// Package schematest checks Go message types and encoded messages against
// a JSON Schema in tests: the subset of JSON Schema (draft 2020-12) that
// policies/protocol/schema.json uses, a validator for it, and the check
// that a Go type's JSON fields are a definition's properties.
//
// It serves the tests of the policy protocol (policies/protocol) and of
// the allocator service (service), whose messages are all definitions of
// the one schema.
package schematest

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Node is one schema object, of the subset the schema uses.
type Node struct {
	Ref                  string           `json:"$ref"`
	Type                 any              `json:"type"` // a name or a list of names
	Const                any              `json:"const"`
	Enum                 []any            `json:"enum"`
	OneOf                []*Node          `json:"oneOf"`
	Required             []string         `json:"required"`
	Properties           map[string]*Node `json:"properties"`
	AdditionalProperties json.RawMessage  `json:"additionalProperties"`
	Items                *Node            `json:"items"`
	Minimum              *float64         `json:"minimum"`
	MinLength            *int             `json:"minLength"`
	Defs                 map[string]*Node `json:"$defs"`
}

// Load decodes a schema.
func Load(data []byte) (*Node, error) {
	var n Node
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	return &n, nil
}

// MustLoad is Load, failing the test on an error.
func MustLoad(tb testing.TB, data []byte) *Node {
	tb.Helper()
	root, err := Load(data)
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

// Validate checks the decoded JSON value v (as encoding/json decodes into
// an any) against the whole schema root.
func (root *Node) Validate(v any) error {
	return root.validate(root, v, "message")
}

// ValidateDef checks the decoded JSON value v against root's definition
// def ($defs).
func (root *Node) ValidateDef(def string, v any) error {
	n := root.Defs[def]
	if n == nil {
		return fmt.Errorf("schema has no definition %q", def)
	}
	return root.validate(n, v, def)
}

// ValidateJSON decodes data and checks it against root's definition def,
// or against the whole schema when def is "", reporting a mismatch as a
// test error.
func ValidateJSON(tb testing.TB, root *Node, def string, data []byte) {
	tb.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		tb.Fatal(err)
	}
	var err error
	if def == "" {
		err = root.Validate(v)
	} else {
		err = root.ValidateDef(def, v)
	}
	if err != nil {
		tb.Errorf("%s\n%.300s", err, data)
	}
}

// validate checks v against node n of root.
func (root *Node) validate(n *Node, v any, at string) error {
	if n.Ref != "" {
		name, ok := strings.CutPrefix(n.Ref, "#/$defs/")
		if !ok || root.Defs[name] == nil {
			return fmt.Errorf("%s: unknown $ref %q", at, n.Ref)
		}
		return root.validate(root.Defs[name], v, at)
	}
	if n.OneOf != nil {
		matched := 0
		var errs []string
		for _, alt := range n.OneOf {
			if err := root.validate(alt, v, at); err == nil {
				matched++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if matched != 1 {
			return fmt.Errorf("%s: matches %d of oneOf's alternatives (%s)", at, matched, strings.Join(errs, "; "))
		}
		return nil
	}
	if n.Type != nil {
		var names []string
		switch ty := n.Type.(type) {
		case string:
			names = []string{ty}
		case []any:
			for _, x := range ty {
				names = append(names, x.(string))
			}
		}
		if !slices.ContainsFunc(names, func(name string) bool { return hasType(v, name) }) {
			return fmt.Errorf("%s: %v is not of type %v", at, v, names)
		}
	}
	if n.Const != nil && !reflect.DeepEqual(n.Const, v) {
		return fmt.Errorf("%s: %v, want %v", at, v, n.Const)
	}
	if n.Enum != nil && !slices.ContainsFunc(n.Enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		return fmt.Errorf("%s: %v not in %v", at, v, n.Enum)
	}
	if x, ok := v.(float64); ok && n.Minimum != nil && x < *n.Minimum {
		return fmt.Errorf("%s: %v below the minimum %v", at, x, *n.Minimum)
	}
	if s, ok := v.(string); ok && n.MinLength != nil && len(s) < *n.MinLength {
		return fmt.Errorf("%s: %q shorter than %d", at, s, *n.MinLength)
	}
	switch x := v.(type) {
	case []any:
		if n.Items != nil {
			for i, e := range x {
				if err := root.validate(n.Items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		return root.validateObject(n, x, at)
	}
	return nil
}

// validateObject checks an object's required keys and every key's value.
func (root *Node) validateObject(n *Node, x map[string]any, at string) error {
	for _, k := range n.Required {
		if _, ok := x[k]; !ok {
			return fmt.Errorf("%s: required %q missing", at, k)
		}
	}
	for k, e := range x {
		if p, ok := n.Properties[k]; ok {
			if err := root.validate(p, e, at+"."+k); err != nil {
				return err
			}
			continue
		}
		switch ap := string(n.AdditionalProperties); {
		case ap == "false":
			return fmt.Errorf("%s: property %q not in the schema", at, k)
		case ap != "" && ap != "true":
			var sub Node
			if err := json.Unmarshal(n.AdditionalProperties, &sub); err != nil {
				return err
			}
			if err := root.validate(&sub, e, at+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

func hasType(v any, name string) bool {
	switch name {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		x, ok := v.(float64)
		return ok && x == math.Trunc(x)
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

// CheckGoType checks that the struct type ty encodes as root's definition
// def: its JSON fields are the definition's properties, the fields without
// omitempty exactly its required ones, and the definition refuses other
// properties (additionalProperties false), as the Go decoders do.
func CheckGoType(tb testing.TB, root *Node, def string, ty reflect.Type) {
	tb.Helper()
	d := root.Defs[def]
	if d == nil {
		tb.Errorf("Go type %s has no schema definition %q", ty, def)
		return
	}
	var fields, required []string
	for i := range ty.NumField() {
		tag := ty.Field(i).Tag.Get("json")
		key, opts, _ := strings.Cut(tag, ",")
		fields = append(fields, key)
		if opts != "omitempty" {
			required = append(required, key)
		}
	}
	var props []string
	for k := range d.Properties {
		props = append(props, k)
	}
	sort.Strings(fields)
	sort.Strings(required)
	sort.Strings(props)
	want := slices.Clone(d.Required)
	sort.Strings(want)
	if !slices.Equal(fields, props) {
		tb.Errorf("%s: Go fields %v, schema properties %v", def, fields, props)
	}
	if !slices.Equal(required, want) {
		tb.Errorf("%s: Go required (no omitempty) %v, schema required %v", def, required, want)
	}
	if string(d.AdditionalProperties) != "false" {
		tb.Errorf("%s: additionalProperties must be false (the Go decoder refuses unknown fields)", def)
	}
}

// CheckGoTypes checks that the object definitions of root whose names
// own accepts are exactly the keys of goDefs, and each its Go type's
// encoding (CheckGoType). Definitions that are not objects (no
// properties) need no Go type.
func CheckGoTypes(tb testing.TB, root *Node, goDefs map[string]reflect.Type, own func(def string) bool) {
	tb.Helper()
	for name, def := range root.Defs {
		if def.Properties == nil || !own(name) {
			continue
		}
		if _, ok := goDefs[name]; !ok {
			tb.Errorf("schema defines %q, no Go type does", name)
		}
	}
	for name, ty := range goDefs {
		if !own(name) {
			tb.Errorf("Go type %s's definition %q is not among the checked ones", ty, name)
			continue
		}
		CheckGoType(tb, root, name, ty)
	}
}
