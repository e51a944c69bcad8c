package sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// With no job's ρ defined, the summary's ρ figures are null in JSON (they
// were 0, "avg rho 0.00"), compact or indented, and only those; a summary
// read back gets NoFairness from its jobs.
func TestNullFairness(t *testing.T) {
	s := Summary{Policy: "p", NoFairness: true, AvgFairnessEqualShare: 2}
	for _, enc := range []func(any) ([]byte, error){json.Marshal, func(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }} {
		data, err := enc(s)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(string(s.NullFairness(data)), " ", "")
		for _, want := range []string{`"avg_fairness_rho":null`, `"p99_fairness_rho":null`, `"frac_rho_above_1":null`, `"avg_fairness_rho_equal_share":2`, `"avg_jct_s":0`} {
			if !strings.Contains(got, want) {
				t.Errorf("lacks %s:\n%s", want, got)
			}
		}
		var back Summary
		if err := json.Unmarshal(s.NullFairness(data), &back); err != nil || back.AvgFairness != 0 {
			t.Errorf("read back: %v %+v", err, back)
		}
	}
	plain, _ := json.Marshal(Summary{})
	if string(Summary{}.NullFairness(plain)) != string(plain) {
		t.Error("a summary with ρ changed")
	}
	var r Summary
	r.SetNoFairness([]JobResult{{ExclusiveJCT: 0, EqualShareJCT: 5}})
	if !r.NoFairness || r.NoFairnessEqualShare {
		t.Errorf("SetNoFairness: %+v", r)
	}
}
