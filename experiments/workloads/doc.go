// Package workloads is the door for workload sources: a source turns a
// reference into a workload, and sources register by name, as policies do.
// A reference is "NAME:ARG" for a registered source NAME, a trace name
// ("itp:cluster02", any registered trace format, see traces.ReadTrace),
// replayed whole (every job, applications by the paper's method), or else a workload CSV file.
//
// The built-in sources: csv:FILE (and any plain path), the adaptdl
// workload CSV; paper:N and paper-realistic:N, the Pollux artifact's
// reference workloads, embedded; generate:KEY=VALUE,... the paper's
// generator, sampling the embedded Philly summary, a Philly table or any
// registered trace. `polluxsim run --workload`, a sweep's workloads,
// `workload generate` and library callers (experiments/runner) all resolve
// through the registry, so a new source is one file with one Register
// call.
package workloads
