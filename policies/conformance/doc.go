// Package conformance is a test suite every scheduling policy must pass.
// It plays canned scheduling rounds (Scenarios) against a policy, feeding
// each round's decision back as the jobs' allocations, the way the
// simulator does, and checks the contract of policies.Policy:
//
//   - one allocation per job, each nil or one entry per node, no negative
//     entry (RuleShape);
//   - no node holds more GPUs than it has (RuleCapacity);
//   - a policy that runs jobs on their request (Traits.UserGPUs) gives
//     each job exactly its requested GPUs or none (RuleUserGPUs);
//   - any other policy keeps each job within its caps, policies.GPUCap:
//     the application's MaxGPUs and the job's batch limits (RuleCap);
//   - two instances built with the same options and seed (and different
//     worker counts) make the same decisions (RuleDeterminism);
//   - Schedule does not modify its input (RuleMutation), does not panic
//     (RulePanic), handles rounds without jobs, and Traits do not change
//     (RuleTraits);
//   - a policy that implements policies.Incremental makes, through
//     ScheduleIncremental, the decisions it makes through Schedule on the
//     same rounds (RuleIncremental), with waiting jobs' views left as they
//     were when they last changed;
//   - a policy whose rounds can fail (policies.Fallible, a policy in
//     another process) reports no fault (RuleFault).
//
// Every policy the suite builds that is an io.Closer (policies/external)
// is closed when the suite is done with it.
//
// Policies whose Traits ask for an oracle get a simple deterministic one.
//
// In-tree, the package's own test runs the suite over every registered
// policy (policies.Names after importing policies/builtin), so a new policy
// is covered as soon as it registers. A policy defined elsewhere runs it
// from its own test:
//
//	func TestConformance(t *testing.T) { conformance.Run(t, "mypolicy") }
package conformance
