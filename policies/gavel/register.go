package gavel

import "github.com/polluxsim/polluxsim/policies"

// The registered names of the Gavel family.
const (
	LAS        = "gavel-las"
	FTF        = "gavel-ftf"
	Throughput = "gavel-throughput"
)

// Registrations are the Gavel family's registrations (gavel-las,
// gavel-ftf, gavel-throughput), for a policies.Registry
// (policies/builtin.Registrations lists them with the other built-ins).
func Registrations() []policies.Registration {
	var out []policies.Registration
	for _, r := range []struct{ name, doc string }{
		{LAS, "Gavel (OSDI'20) max-min fairness (LAS) over normalised throughputs per GPU type, with priority weights; rounds; requested GPUs and batch"},
		{FTF, "Gavel (OSDI'20) finish-time fairness (Themis's ρ): minimise the largest ρ over GPU types (oracle); rounds; requested GPUs and batch"},
		{Throughput, "Gavel (OSDI'20) maximum sum of throughputs (steps per second, as Gavel's code; normalise=true: normalised per job) over GPU types; rounds; requested GPUs and batch"},
	} {
		name := r.name
		out = append(out, policies.Typed(policies.Registration{Name: name, Doc: r.doc}, DefaultOptions,
			func(o Options, _ policies.Env) (policies.Policy, error) { return New(name, o) }))
	}
	return out
}
