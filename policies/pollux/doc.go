// Package pollux implements PolluxSched, the cluster-wide half of Pollux
// (OSDI'21): every round it searches over allocation matrices (jobs ×
// nodes, entries = GPUs) for the one that maximises a power mean of the
// jobs' speedups, where a job's speedup is its best goodput on the
// candidate allocation (predicted by the goodput core, package models, from
// the parameters its agent fitted) relative to its goodput on a fair share.
//
// Fitness. For allocation A with jobs j = 1..J:
//
//	FITNESS_p(A) = ( Σ_j (SPEEDUP_j(A_j)·w + ε)^p / J )^(1/p)
//
// with w = nodes/GPUs (a job on one full node scores 1), ε = 10⁻³, and each
// speedup multiplied by the re-allocation factor (age − restarts·δ)/(age +
// δ) when the job's allocation differs from its current one (δ = the
// restart delay). p = 0 is the geometric mean. Pending jobs take part, so
// admission and allocation are one optimisation.
//
// Constraints, enforced by a repair step in job order (least attained
// service first): at most one multi-node job per node (interference
// avoidance, switchable); per job at most min(2 × the most GPUs it has run
// on, the application's limits, MaxGPUsPerJob) GPUs and at most
// MaxNodesPerJob nodes; node capacity.
//
// Search. A seeded, deterministic genetic algorithm with the reference's
// operators and settings (population 100, 100 generations, the initial
// population carried over from the previous round's final one; single-point
// crossover over job rows; mutation that resets a row to the current
// allocation, zeroes entries of a row, or raises entries towards node
// capacity; repair), with elitist (μ+λ) survival and duplicate elimination,
// followed by a greedy local search that moves single GPUs while fitness
// improves. The reference uses NSGA-II with a second objective (cluster
// utility) and then picks the best power mean; we optimise the power mean
// directly, which can only find an equal or better pick for the same
// budget.
package pollux
