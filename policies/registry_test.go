package policies_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// testOptions exercises every supported option type.
type testOptions struct {
	Rate    float64 `option:"rate" doc:"a rate"`
	Count   int     `option:"count" doc:"a count"`
	Seed    uint64  `option:"seed" doc:"a seed"`
	On      bool    `option:"on" doc:"a switch"`
	Mode    string  `option:"mode" doc:"a mode"`
	private int     // not an option
}

func (o *testOptions) Validate() error {
	if o.Count < 0 {
		return errors.New("count must not be negative")
	}
	return nil
}

type testPolicy struct{ opt testOptions }

func (*testPolicy) Name() string            { return "registry-test" }
func (*testPolicy) Traits() policies.Traits { return policies.Traits{} }
func (*testPolicy) Schedule(float64, policies.Cluster, []policies.Job) policies.Decision {
	return policies.Decision{}
}

// newRegistry returns a registry of its own holding the test policy.
func newRegistry(t *testing.T) *policies.Registry {
	t.Helper()
	r := policies.NewRegistry()
	err := r.Register(policies.Typed(policies.Registration{Name: "registry-test", Doc: "test"},
		func() testOptions { return testOptions{Rate: 0.5, Count: 3, Mode: "a"} },
		func(o testOptions, _ policies.Env) (policies.Policy, error) { return &testPolicy{opt: o}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveDefaultsAndCanonicalOrder(t *testing.T) {
	r := newRegistry(t)
	got, err := r.Resolve("registry-test", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"rate":0.5,"count":3,"seed":0,"on":false,"mode":"a"}`; string(got) != want {
		t.Errorf("defaults %s, want %s", got, want)
	}
}

// Layers apply in order: a later layer wins, and the result does not
// depend on the order of keys within a layer.
func TestResolveLayers(t *testing.T) {
	r := newRegistry(t)
	a, err := r.Resolve("registry-test", "", json.RawMessage(`{"mode":"b","count":7}`), []string{"count=9", "on=true", "seed=18446744073709551615"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Resolve("registry-test", "", []string{"seed=18446744073709551615", "on=true", "count=9", "mode=b"})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.Contains(string(a), `"count":9`) || !strings.Contains(string(a), `"mode":"b"`) {
		t.Errorf("layers gave %s and %s", a, b)
	}
	// An effective set resolves to itself and builds the same options.
	if again, err := r.Resolve("registry-test", a); err != nil || again != a {
		t.Errorf("re-resolving %s gave %s, %v", a, again, err)
	}
	p, err := r.Build("registry-test", a, policies.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if o := p.(*testPolicy).opt; o.Count != 9 || !o.On || o.Mode != "b" || o.Seed != 1<<64-1 || o.Rate != 0.5 {
		t.Errorf("built with %+v", o)
	}
}

func TestResolveErrors(t *testing.T) {
	r := newRegistry(t)
	for _, tc := range []struct {
		layer any
		want  string
	}{
		{[]string{"nosuch=1"}, `policy registry-test has no option "nosuch" (valid: rate, count, seed, on, mode)`},
		{[]string{"private=1"}, `has no option "private"`},
		{[]string{"count=1.5"}, `option count: "1.5" is not a valid integer`},
		{[]string{"rate=NaN"}, `option rate: "NaN" is not a valid number`},
		{[]string{"rate=1_000"}, `option rate: "1_000" is not a valid number`},
		{[]string{"on=maybe"}, `option on: "maybe" is not a valid bool`},
		{[]string{"seed=-1"}, `option seed: "-1" is not a valid unsigned integer`},
		{[]string{"count"}, `must be key=value`},
		{[]string{"count=-1"}, `policy registry-test: count must not be negative`},
		{json.RawMessage(`{"count": "3"}`), `option count: "3" is not a valid integer`},
		{json.RawMessage(`{"count": 3} {}`), `text after the JSON object`},
		{json.RawMessage(`[1]`), `options must be a JSON object: want an object, got an array`},
		{json.RawMessage(`{"rate": 1e999}`), `option rate`},
	} {
		_, err := r.Resolve("registry-test", "", tc.layer)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.layer, err, tc.want)
		}
	}
	if _, err := r.Resolve("nosuch", ""); err == nil || !strings.Contains(err.Error(), `unknown policy "nosuch" (known: `) {
		t.Errorf("unknown policy: %v", err)
	}
}

// A set survives a JSON round trip (as in stored run records) unchanged,
// whatever the indentation it was written with.
func TestOptionSetJSONRoundTrip(t *testing.T) {
	r := newRegistry(t)
	set, _ := r.Resolve("registry-test", "", []string{"mode=x y"})
	data, err := json.MarshalIndent(struct {
		Options policies.OptionSet `json:"options"`
	}{set}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Options policies.OptionSet `json:"options"`
	}
	if err := json.Unmarshal(data, &back); err != nil || back.Options != set {
		t.Errorf("round trip %s -> %s, %v", set, back.Options, err)
	}
	if v, ok := set.Value("mode"); !ok || v != "x y" {
		t.Errorf("Value(mode) = %v, %v", v, ok)
	}
}

func TestDescribe(t *testing.T) {
	r := newRegistry(t)
	docs, err := r.Describe("registry-test")
	if err != nil || len(docs) != 5 {
		t.Fatalf("%v, %v", docs, err)
	}
	if d := docs[0]; d.Key != "rate" || d.Type != "number" || d.Default != "0.5" || d.Doc != "a rate" {
		t.Errorf("first option %+v", d)
	}
}

func TestRegisterRejectsMalformed(t *testing.T) {
	r := newRegistry(t)
	newFn := func(any, policies.Env) (policies.Policy, error) { return &testPolicy{}, nil }
	type noDoc struct {
		X int `option:"x"`
	}
	for _, tc := range []struct {
		name string
		reg  policies.Registration
		want string
	}{
		{"bad name", policies.Registration{Name: "Bad Name", New: newFn}, "must be lower-case"},
		{"no New", policies.Registration{Name: "no-new"}, "has no New"},
		{"not a pointer", policies.Registration{Name: "not-ptr", New: newFn, Defaults: func() any { return testOptions{} }}, "not-ptr"},
		{"no doc", policies.Registration{Name: "no-doc", New: newFn, Defaults: func() any { return &noDoc{} }}, "no-doc"},
		{"duplicate", policies.Registration{Name: "registry-test", New: newFn}, "registered twice"},
		{"negative cost", policies.Registration{Name: "neg-cost", New: newFn, Cost: -1}, "cost must be a non-negative number"},
	} {
		if err := r.Register(tc.reg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if got := r.Names(); len(got) != 1 || got[0] != "registry-test" {
		t.Errorf("registry holds %v after the refusals", got)
	}
	// MustRegistry panics on the same mistakes (they are programming
	// errors found at start-up).
	func() {
		defer func() {
			if recover() == nil {
				t.Error("policies.MustRegistry of a bad name: no panic")
			}
		}()
		policies.MustRegistry(policies.Registration{Name: "Bad Name", New: newFn})
	}()
}

// Registries are independent: what one holds, another and the default
// registry do not.
func TestRegistriesIndependent(t *testing.T) {
	a, b := newRegistry(t), policies.NewRegistry()
	if _, ok := b.Lookup("registry-test"); ok || len(b.Names()) != 0 {
		t.Errorf("a new registry holds %v", b.Names())
	}
	if _, err := b.Build("registry-test", "", policies.Env{}); err == nil || !strings.Contains(err.Error(), `unknown policy "registry-test"`) {
		t.Errorf("building from the empty registry: %v", err)
	}
	if _, err := a.Build("registry-test", "", policies.Env{}); err != nil {
		t.Error(err)
	}
}

// A registration's cost hint is 1 unless it says otherwise.
func TestRelativeCost(t *testing.T) {
	if c := (policies.Registration{}).RelativeCost(); c != 1 {
		t.Errorf("unset cost %v, want 1", c)
	}
	if c := (policies.Registration{Cost: 100}).RelativeCost(); c != 100 {
		t.Errorf("cost 100 gives %v", c)
	}
}
