package runner

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// Inputs are what a run reads, each given as a value or by reference.
type Inputs struct {
	// Profiles is the profile set; when nil, ProfilesRef names it (see
	// LoadProfiles).
	Profiles    *profiles.Set
	ProfilesRef string
	// Workload is the workload; when nil, WorkloadRef names it (a
	// reference any registered workload source resolves: a workload CSV,
	// paper:N, generate:..., a trace name; see package workloads), or,
	// when WorkloadRef is empty too, it is generated as Generate says (the
	// zero Generate is workloads.DefaultGenerate).
	Workload    *traces.Workload
	WorkloadRef string
	Generate    workloads.Generate
}

// LoadProfiles loads the profile set ref names: "" is the default, the
// measured tables embedded in the binary; a built-in set's name
// (profiles.NamedSets: "embedded", "compact", "llm"); a file is a compact profile
// file (as `profiles derive` writes it); a folder is data in the reference
// (adaptdl) format, either the data root or its traces/ folder. A folder
// named like a built-in set is given with a path, e.g. ./compact. The set's
// Digest identifies what was read.
func LoadProfiles(ref string) (*profiles.Set, error) {
	if ref == "" {
		return profiles.Default(), nil
	}
	if set, ok := profiles.Named(ref); ok {
		return set, nil
	}
	st, err := os.Stat(ref)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("--profiles %s: no such file or folder (built-in sets: %s)", ref, strings.Join(ProfileSetNames(), ", "))
		}
		return nil, fmt.Errorf("--profiles %s: %w", ref, fserr.Cause(err))
	}
	if !st.IsDir() {
		return profiles.LoadCompact(ref)
	}
	return profiles.Load(ref)
}

// ProfileSetNames lists the built-in profile sets.
func ProfileSetNames() []string {
	var names []string
	for _, n := range profiles.NamedSets() {
		names = append(names, n.Name)
	}
	return names
}

// ProfilesHelp describes a profiles reference for flags' help.
const ProfilesHelp = "profiles: embedded (the measured tables, default) or compact (the embedded compact model), llm (LLM-era transformer jobs on h100/a100-80gb/a100-40gb, docs/llm.md), a folder in the reference (adaptdl) format, or a compact profile file"

// workload resolves the run's workload, with the warnings reading it
// gave and those its batch sizes earn (see runspec.BatchWarnings).
func (in Inputs) workload(ext *extensions.Extensions, set *profiles.Set, spec runspec.RunSpec) (w *traces.Workload, read, batch []string, err error) {
	if in.Workload != nil {
		return in.Workload, nil, nil, nil // the caller chose it
	}
	env := ext.WorkloadEnv(set, spec.GPUsPerNode)
	if in.WorkloadRef != "" {
		w, read, err := ext.ResolveWorkload(in.WorkloadRef, env)
		if err != nil {
			return nil, nil, nil, err
		}
		return w, read, runspec.BatchWarnings(w, set), nil
	}
	g := in.Generate
	if g == (workloads.Generate{}) {
		g = workloads.DefaultGenerate()
	}
	if err := g.Validate(); err != nil {
		return nil, nil, nil, err
	}
	w, read, err = g.Make(env)
	return w, read, nil, err
}
