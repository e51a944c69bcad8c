package policies_test

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
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

var registerOnce sync.Once

func register(t *testing.T) {
	t.Helper()
	registerOnce.Do(func() {
		policies.Register(policies.Registration{
			Name: "registry-test",
			Doc:  "test",
			Defaults: func() any {
				return &testOptions{Rate: 0.5, Count: 3, Mode: "a"}
			},
			New: func(v any, _ policies.Env) (policies.Policy, error) {
				return &testPolicy{opt: *v.(*testOptions)}, nil
			},
		})
	})
}

func TestResolveDefaultsAndCanonicalOrder(t *testing.T) {
	register(t)
	got, err := policies.Resolve("registry-test", "")
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
	register(t)
	a, err := policies.Resolve("registry-test", "", json.RawMessage(`{"mode":"b","count":7}`), []string{"count=9", "on=true", "seed=18446744073709551615"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := policies.Resolve("registry-test", "", []string{"seed=18446744073709551615", "on=true", "count=9", "mode=b"})
	if err != nil {
		t.Fatal(err)
	}
	if a != b || !strings.Contains(string(a), `"count":9`) || !strings.Contains(string(a), `"mode":"b"`) {
		t.Errorf("layers gave %s and %s", a, b)
	}
	// An effective set resolves to itself and builds the same options.
	if again, err := policies.Resolve("registry-test", a); err != nil || again != a {
		t.Errorf("re-resolving %s gave %s, %v", a, again, err)
	}
	p, err := policies.Build("registry-test", a, policies.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if o := p.(*testPolicy).opt; o.Count != 9 || !o.On || o.Mode != "b" || o.Seed != 1<<64-1 || o.Rate != 0.5 {
		t.Errorf("built with %+v", o)
	}
}

func TestResolveErrors(t *testing.T) {
	register(t)
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
		{json.RawMessage(`[1]`), `options must be a JSON object`},
		{json.RawMessage(`{"rate": 1e999}`), `option rate`},
	} {
		_, err := policies.Resolve("registry-test", "", tc.layer)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.layer, err, tc.want)
		}
	}
	if _, err := policies.Resolve("nosuch", ""); err == nil || !strings.Contains(err.Error(), `unknown policy "nosuch" (known: `) {
		t.Errorf("unknown policy: %v", err)
	}
}

// A set survives a JSON round trip (as in stored run records) unchanged,
// whatever the indentation it was written with.
func TestOptionSetJSONRoundTrip(t *testing.T) {
	register(t)
	set, _ := policies.Resolve("registry-test", "", []string{"mode=x y"})
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
	register(t)
	docs, err := policies.Describe("registry-test")
	if err != nil || len(docs) != 5 {
		t.Fatalf("%v, %v", docs, err)
	}
	if d := docs[0]; d.Key != "rate" || d.Type != "number" || d.Default != "0.5" || d.Doc != "a rate" {
		t.Errorf("first option %+v", d)
	}
}

func TestRegisterRejectsMalformed(t *testing.T) {
	mustPanic := func(name string, r policies.Registration) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		policies.Register(r)
	}
	newFn := func(any, policies.Env) (policies.Policy, error) { return &testPolicy{}, nil }
	mustPanic("bad name", policies.Registration{Name: "Bad Name", New: newFn})
	mustPanic("no New", policies.Registration{Name: "no-new"})
	mustPanic("not a pointer", policies.Registration{Name: "not-ptr", New: newFn, Defaults: func() any { return testOptions{} }})
	type noDoc struct {
		X int `option:"x"`
	}
	mustPanic("no doc", policies.Registration{Name: "no-doc", New: newFn, Defaults: func() any { return &noDoc{} }})
	register(t)
	mustPanic("duplicate", policies.Registration{Name: "registry-test", New: newFn})
}
