package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// provenance lists where the numbers come from: versions, inputs (the
// cluster as its GPUs and pools, e.g. "64 GPUs (t4:6x4,a100:2x8,...)"), each
// cell's settings that differ from the defaults, and the sources of the
// reference numbers.
func provenance(exp *experiments.Experiment, runs []*results.RunResult, sum *sweep.SweepSummary) [][2]string {
	set := func(get func(r *results.RunResult) string) string {
		m := map[string]bool{}
		for _, r := range runs {
			m[get(r)] = true
		}
		return strings.Join(slices.Sorted(maps.Keys(m)), "; ")
	}
	p := [][2]string{
		{"experiment", fmt.Sprintf("%s, version %d", exp.Name, exp.Version)},
		{"runs", fmt.Sprintf("%d of %d", sum.Runs, sum.ExpectedRuns)},
		{"polluxsim", set(func(r *results.RunResult) string { return r.PolluxsimVersion })},
		{"profiles", set(func(r *results.RunResult) string {
			if r.Profiles == r.ProfilesID {
				return r.Profiles
			}
			return r.ProfilesID + " (" + r.Profiles + ")"
		})},
		{"workloads", workloadKinds(runs)},
		{"cluster", set(func(r *results.RunResult) string { return r.Settings.ClusterText() })},
	}
	if len(sum.Missing) > 0 {
		p = append(p, [2]string{"missing runs", strings.Join(sum.Missing, ", ")})
	}
	for _, c := range sum.Cells {
		kv := append([]string{"policy=" + c.Policy}, reportedNames(runs, c.Cell, c.Policy)...)
		kv = append(kv, nonDefault(exp.Extensions(), c.Settings)...)
		kv = append(kv, fmt.Sprintf("load=%g", c.Load), "config="+c.Config)
		p = append(p, [2]string{"cell " + c.Cell, strings.Join(kv, " ")})
	}
	for _, name := range slices.Sorted(maps.Keys(exp.Sources)) {
		p = append(p, [2]string{"reference " + name, exp.Sources[name]})
	}
	return p
}

// reportedNames lists, as policy_name=NAME, the names that the runs of
// cell report of their policy when they differ from policy (an external
// policy's child's name; see outputs.PolicyName).
func reportedNames(runs []*results.RunResult, cell, policy string) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		if n := outputs.PolicyName(r.Settings.Policy, r.PolicyName); r.Cell == cell && n != policy {
			seen[n] = true
		}
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, "policy_name="+n)
	}
	return out
}

// nonDefault lists, as key=value, the settings and policy options of s
// that differ from the policy's defaults (runspec.DefaultSpec with the
// default options of reg's policy; all its options for a policy reg does
// not know), keys in order.
func nonDefault(reg runspec.Registries, s runspec.RunSpec) []string {
	d := runspec.DefaultSpec(s.Policy)
	d, _ = d.WithOptions(reg)
	have, def := flatSpec(s), flatSpec(d)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(have)) {
		if k == "policy" {
			continue
		}
		if d, ok := def[k]; !ok || !reflect.DeepEqual(d, have[k]) {
			out = append(out, k+"="+valueText(have[k]))
		}
	}
	return out
}

// flatSpec is a spec as key → JSON value, its options' keys beside its
// settings'.
func flatSpec(s runspec.RunSpec) map[string]any {
	data, _ := json.Marshal(s)
	m := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return m
	}
	opts, _ := m["options"].(map[string]any)
	delete(m, "options")
	for k, v := range opts {
		m[k] = v
	}
	return m
}

// valueText writes a JSON value as it is typed on a command line.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// workloadKinds lists the kinds of workloads the runs used, with counts.
func workloadKinds(runs []*results.RunResult) string {
	n := map[string]int{}
	for _, r := range runs {
		n[figures.WorkloadKind(r.WorkloadSource)]++
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s (%d runs)", k, n[k]))
	}
	return strings.Join(out, "; ")
}

// referenceApplies says whether the runs used the inputs the published
// numbers were measured on: the measured tables and the reference
// workloads.
func referenceApplies(runs []*results.RunResult) string {
	var why []string
	for _, r := range runs {
		if r.ProfilesID != "embedded" {
			why = append(why, "these runs use the profiles "+r.ProfilesID+", not the measured tables")
			break
		}
	}
	for _, r := range runs {
		if strings.HasPrefix(r.WorkloadSource, "generated") {
			why = append(why, "some workloads are generated, not the reference workloads")
			break
		}
	}
	if len(why) == 0 {
		return "yes: the runs use the measured tables and the reference workloads"
	}
	return "only roughly: " + strings.Join(why, "; ")
}
