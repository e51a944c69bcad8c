package protocol

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/internal/schematest"
)

// loadSchema is the package's schema, for its tests.
func loadSchema(t *testing.T) *schematest.Node {
	t.Helper()
	return schematest.MustLoad(t, Schema)
}

// validateMessage checks one encoded message against the whole schema.
func validateMessage(t *testing.T, root *schematest.Node, data []byte) {
	t.Helper()
	schematest.ValidateJSON(t, root, "", data)
}

// isService says whether a definition is one of the allocator service's
// (package service checks those).
func isService(def string) bool { return strings.HasPrefix(def, "service_") }

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
	"admit":                reflect.TypeFor[Admit](),
	"admission":            reflect.TypeFor[Admission](),
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
	schematest.CheckGoTypes(t, root, goDefs, func(def string) bool { return !isService(def) })
	var alts []string
	for _, a := range root.OneOf {
		name := strings.TrimPrefix(a.Ref, "#/$defs/")
		alts = append(alts, name)
		if c := root.Defs[name].Properties["type"].Const; c != name {
			t.Errorf("message %s: type const %v", name, c)
		}
	}
	types := []string{TypeHello, TypeReady, TypeRound, TypeDecision, TypeIncrementalRound, TypeIncrementalDecision, TypeQuery, TypeAnswer, TypeError, TypeAdmit, TypeAdmission}
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
		if root.Validate(v) == nil {
			t.Errorf("%s: valid", bad)
		}
	}
}
