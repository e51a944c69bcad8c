// Package service is polluxsim's live allocator: an HTTP service
// (`polluxsim serve`) that exposes every registered policy, and optionally
// an autoscaler, to a cluster manager, in the vocabulary of AdaptDL's live
// scheduler (petuum/adaptdl, sched/adaptdl_sched): nodes by name, a job's
// allocation as the node of each replica, its hints in AdaptDL's keys
// (initBatchSize, localBszBounds, maxBatchSize, maxProfiledReplicas,
// gradParams, perfParams, ...). docs/serve.md maps every field. The
// bodies (wire.go) are declared in the policy protocol's JSON Schema
// (policies/protocol/schema.json) as its service_* definitions; the
// package's tests check the Go types and real bodies against them.
//
// A client creates a session (a policy, its options, a seed), then posts
// one round at a time: the nodes and the active jobs. The session keeps
// the policy's state between rounds; it expires after an idle time.
// Policies defined with an oracle (Optimus+Oracle, SRTF, Gavel) ask the
// caller for the facts: a round's answer is then a batch of oracle queries
// that the client answers on the same session until the decision comes.
//
// The same package holds the client: the policy "remote"
// (--policy remote --policy-opt url=...) makes the simulator call a
// running service for every decision through the same messages, which is
// how the tests prove the live path and the simulated one identical.
//
// Only the standard library's net/http is used. The service is safe by
// default: loopback address, optional bearer token, JSON bodies only, a
// caller may only ask for decisions (a policy declaring effects, such as
// starting processes or reaching the network, only when the operator
// allows it: Config.Allow), every input bounded (Limits: bodies and the
// time to send them, jobs, nodes, GPUs, answers, sessions, connections),
// strict decoding, one request at a time per session, a policy's panic
// contained to its request. docs/serve.md has the threat model.
package service
