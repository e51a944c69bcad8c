// Package runspec describes one simulation run: RunSpec (the policy and its
// effective options, the cluster, the engine's settings, the seed), how a
// policy and a sim.Config are built from it (NewPolicy, SimConfig), node
// pools (ParseCluster, LoadCluster), calibrations to a physical cluster,
// offline priors, elastic clusters, and the workloads a run may generate
// (GenerateWorkload, uniform workloads) with the warnings a workload earns
// against a profile set (BatchWarnings).
package runspec
