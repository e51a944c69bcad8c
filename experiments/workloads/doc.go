// Package workloads is the door for workload sources: a source turns a
// reference into a workload; a binary's sources are a Registry in its
// extensions (experiments/extensions), as its policies are.
// A reference is "NAME:ARG" for a registered source NAME, a trace name
// ("itp:cluster02", any trace format of Env.Traces),
// replayed whole (every job, applications by the paper's method), or else a workload CSV file.
//
// The built-in sources: csv:FILE (and any plain path), the adaptdl
// workload CSV; paper:N and paper-realistic:N, the Pollux artifact's
// reference workloads, embedded; generate:KEY=VALUE,... the paper's
// generator, sampling the embedded Philly summary, a Philly table or any
// registered trace. `polluxsim run --workload`, a sweep's workloads,
// `workload generate` and library callers (experiments/runner) all resolve
// through the binary's registry, so a new source is one file declaring a
// Source (app.WithSource adds it); Builtin lists the built-in ones.
package workloads
