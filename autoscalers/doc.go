// Package autoscalers holds the Autoscaler interface of elastic clusters
// (paper §5.4.1, Fig 9) and its registry, beside the policies' one: an
// autoscaler is consulted every scheduling round, before the policy, and
// names the number of nodes the cluster should have. The engine
// (sim.Elastic) orders nodes, which become ready after a provisioning
// delay, and releases them; it bills every ordered node by the hour.
//
// Three autoscalers are registered, found by name like policies and with
// options decoded by the same machinery (policies.ResolveOptions):
//
//   - goodput: the Pollux paper's rule. Scale up when the predicted goodput
//     per node exceeds U × the ideal (perfectly scaling) goodput, to the
//     largest node count whose predicted goodput is still at least L × the
//     ideal; scale down to that count when it falls below L.
//   - throughput: the same rule on throughput alone, ignoring statistical
//     efficiency, as the throughput-based autoscaler of Or et al. (2020).
//   - utility-band: the cluster-level form the Pollux artifact intended
//     (and never ran): the cluster's utility averaged over a window of
//     rounds is kept within a low/high band, the new size found by binary
//     search.
//
// The rules themselves are pure functions of a Curve (Rule.Target,
// Band.Target), tested on hand-computed curves.
package autoscalers
