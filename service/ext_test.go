package service

import (
	"github.com/polluxsim/polluxsim/autoscalers"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/workloads"
	"github.com/polluxsim/polluxsim/policies/builtin"
	"github.com/polluxsim/polluxsim/traces"
)

// testExt are the built-in policies with remote, the autoscalers, trace
// formats and workload sources, for tests (experiments/intree imports
// this package).
var testExt = extensions.Must(
	extensions.WithPolicy(builtin.Registrations()...),
	extensions.WithPolicy(RemoteRegistration()),
	extensions.WithAutoscaler(autoscalers.Builtin()...),
	extensions.WithTraceFormat(traces.BuiltinTraceFormats()...),
	extensions.WithSource(workloads.Builtin()...),
)
