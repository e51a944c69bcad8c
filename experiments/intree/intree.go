// Package intree is everything that ships with polluxsim as one
// extensions value, as the Kubernetes scheduler's NewInTreeRegistry is:
// the built-in policies (policies/builtin), the policy in another process
// (external) and the one behind a polluxsim serve service (remote), the
// autoscalers, trace formats, workload sources and figure kinds. The
// stock binary merges it in (app.New does unless app.WithoutBuiltins); a
// library user passes it, or a value of their own, down the pipeline.
package intree

import (
	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/policies/external"
	"github.com/polluxsim/polluxsim/service"
	"github.com/polluxsim/polluxsim/traces"
)

// Options are the built-ins as options of extensions.New.
func Options() []extensions.Option {
	return []extensions.Option{
		extensions.WithPolicy(builtin.Registrations()...),
		extensions.WithPolicy(external.Registration(), service.RemoteRegistration()),
		extensions.WithAutoscaler(autoscalers.Builtin()...),
		extensions.WithTraceFormat(traces.BuiltinTraceFormats()...),
		extensions.WithSource(workloads.Builtin()...),
		figures.WithKind(figures.Builtin()...),
	}
}

// Extensions returns a new value of the built-ins.
func Extensions() *extensions.Extensions { return extensions.Must(Options()...) }

// With returns the built-ins with more options applied (a binary's own
// policies, sources, kinds, ...).
func With(opts ...extensions.Option) (*extensions.Extensions, error) {
	return extensions.New(append(Options(), opts...)...)
}

// DefaultPolicy is the policy a stock binary runs when none is named.
const DefaultPolicy = "pollux"
