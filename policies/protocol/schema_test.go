package protocol

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

// schemaNode is the subset of JSON Schema that schema.json uses.
type schemaNode struct {
	Ref                  string                 `json:"$ref"`
	Type                 any                    `json:"type"` // a name or a list of names
	Const                any                    `json:"const"`
	Enum                 []any                  `json:"enum"`
	OneOf                []*schemaNode          `json:"oneOf"`
	Required             []string               `json:"required"`
	Properties           map[string]*schemaNode `json:"properties"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
	Minimum              *float64               `json:"minimum"`
	MinLength            *int                   `json:"minLength"`
	Defs                 map[string]*schemaNode `json:"$defs"`
}

func loadSchema(t *testing.T) *schemaNode {
	t.Helper()
	var s schemaNode
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatalf("schema.json: %v", err)
	}
	return &s
}

// validate checks the decoded JSON value v against node n of root.
func (root *schemaNode) validate(n *schemaNode, v any, at string) error {
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
				var sub schemaNode
				if err := json.Unmarshal(n.AdditionalProperties, &sub); err != nil {
					return err
				}
				if err := root.validate(&sub, e, at+"."+k); err != nil {
					return err
				}
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

// validateMessage checks one encoded message against the whole schema.
func validateMessage(t *testing.T, root *schemaNode, data []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if err := root.validate(root, v, "message"); err != nil {
		t.Errorf("%s\n%.300s", err, data)
	}
}

// goDefs are the Go types of the schema's definitions.
var goDefs = map[string]reflect.Type{
	"hello":                reflect.TypeFor[Hello](),
	"ready":                reflect.TypeFor[Ready](),
	"traits":               reflect.TypeFor[Traits](),
	"round":                reflect.TypeFor[Round](),
	"decision":             reflect.TypeFor[Decision](),
	"incremental_round":    reflect.TypeFor[IncrementalRound](),
	"keyed":                reflect.TypeFor[Keyed](),
	"incremental_decision": reflect.TypeFor[IncrementalDecision](),
	"change":               reflect.TypeFor[Change](),
	"query":                reflect.TypeFor[Query](),
	"answer":               reflect.TypeFor[Answer](),
	"error":                reflect.TypeFor[Error](),
	"cluster":              reflect.TypeFor[Cluster](),
	"pool":                 reflect.TypeFor[Pool](),
	"job":                  reflect.TypeFor[Job](),
	"request":              reflect.TypeFor[Request](),
	"limits":               reflect.TypeFor[Limits](),
	"params":               reflect.TypeFor[Params](),
	"grad":                 reflect.TypeFor[GradStats](),
	"type_model":           reflect.TypeFor[TypeModel](),
}

// TestGoTypesMatchSchema: every object the schema defines has a Go type
// whose JSON fields are its properties, the fields without omitempty
// exactly its required ones, and every message type is one of the
// schema's alternatives, with its type constant.
func TestGoTypesMatchSchema(t *testing.T) {
	root := loadSchema(t)
	for name, def := range root.Defs {
		if def.Properties == nil {
			continue // alloc: not an object
		}
		ty, ok := goDefs[name]
		if !ok {
			t.Errorf("schema defines %q, no Go type does", name)
			continue
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
		for k := range def.Properties {
			props = append(props, k)
		}
		sort.Strings(fields)
		sort.Strings(required)
		sort.Strings(props)
		want := slices.Clone(def.Required)
		sort.Strings(want)
		if !slices.Equal(fields, props) {
			t.Errorf("%s: Go fields %v, schema properties %v", name, fields, props)
		}
		if !slices.Equal(required, want) {
			t.Errorf("%s: Go required (no omitempty) %v, schema required %v", name, required, want)
		}
		if string(def.AdditionalProperties) != "false" {
			t.Errorf("%s: additionalProperties must be false (the Go decoder refuses unknown fields)", name)
		}
	}
	for name := range goDefs {
		if root.Defs[name] == nil {
			t.Errorf("Go type %s has no schema definition", name)
		}
	}
	var alts []string
	for _, a := range root.OneOf {
		name := strings.TrimPrefix(a.Ref, "#/$defs/")
		alts = append(alts, name)
		if c := root.Defs[name].Properties["type"].Const; c != name {
			t.Errorf("message %s: type const %v", name, c)
		}
	}
	types := []string{TypeHello, TypeReady, TypeRound, TypeDecision, TypeIncrementalRound, TypeIncrementalDecision, TypeQuery, TypeAnswer, TypeError}
	sort.Strings(alts)
	sort.Strings(types)
	if !slices.Equal(alts, types) {
		t.Errorf("schema's messages %v, Go's %v", alts, types)
	}
}

// TestValidatorRejects: the test's validator is not a rubber stamp.
func TestValidatorRejects(t *testing.T) {
	root := loadSchema(t)
	for _, bad := range []string{
		`{"type":"decision","round":1}`,
		`{"type":"decision","round":1,"alloc":[[1,-1]]}`,
		`{"type":"decision","round":1,"alloc":[],"extra":1}`,
		`{"type":"answer","value":"x","ok":true}`,
		`{"type":"query","job":"a","fact":"age"}`,
		`{"type":"ready","protocol":1,"name":"","traits":{"adaptive_batch":false,"needs_oracle":false,"user_gpus":true}}`,
		`{"type":"nothing"}`,
		`{"type":"round","round":1.5,"now":0,"cluster":{"nodes":1,"gpus_per_node":4},"jobs":[]}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(bad), &v); err != nil {
			t.Fatal(err)
		}
		if root.validate(root, v, "message") == nil {
			t.Errorf("%s: valid", bad)
		}
	}
}
