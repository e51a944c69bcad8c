// Package protocol is the wire form of the policies.Policy interface: the
// messages through which a policy running outside the simulator's process
// (a Python program, a service) schedules a simulation's rounds. It is
// transport-neutral: every message is one JSON object with a "type" field,
// and a transport carries them one after another (policies/external sends
// them as newline-delimited JSON over a child process's standard input and
// output; an HTTP service sends one per request or response).
//
// A conversation, with E the engine and P the policy:
//
//	E → P  hello                 protocol versions and the run's environment
//	P → E  ready                 the version chosen, policy name, traits,
//	                             whether it decides incrementally, options
//	then once per scheduling round, either
//	E → P  round                 time, cluster, every active job
//	P → E  decision              one allocation per job, in order
//	or, for a policy that is incremental (policies.Incremental),
//	E → P  incremental_round     time, cluster, jobs added, updated, removed
//	P → E  incremental_decision  the jobs whose allocation changes
//
// Within a round a policy whose traits ask for an oracle may send any
// number of query messages before its decision; each is answered by one
// answer message. Either side may send error instead of its next message,
// which ends the conversation.
//
// The messages are declared once, in schema.json (JSON Schema, embedded as
// Schema); the Go types here are checked against it by the package's
// tests (with internal/schematest), and the Python client
// (python/polluxsim_policy.py) follows it. The schema's service_*
// definitions are the HTTP allocator service's bodies (package service),
// not messages of this protocol.
// Version is the protocol's newest version: a change that an older peer
// would misread increments it. The engine offers a range of versions in
// hello (MinVersion to Version) and the policy picks one in ready
// (Negotiate), so that older peers keep working; docs/protocol.md is the
// reference and holds the changelog.
//
// A job on the wire carries exactly what policies.Job carries, the oracle
// excepted (it is the query messages); FromJob and Job.Policies convert
// both ways, and float64 values survive the JSON text exactly. JSON has no
// NaN or infinity: a message holding one is refused when it is written.
package protocol
