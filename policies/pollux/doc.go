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
// MaxNodesPerJob nodes; node capacity. For a job with a memory floor (an
// LLM job, policies.Job.MinGPUs) the two caps are raised to its request
// (the nodes it fills packed) and floor: the other policies run it there.
//
// Search. A seeded, deterministic genetic algorithm with the reference's
// operators and settings (the initial population carried over from the
// previous round's final one; single-point crossover over job rows;
// mutation that resets a row to the current allocation, zeroes entries of
// a row, or raises entries towards node capacity; repair), with elitist
// (μ+λ) survival and duplicate elimination, followed by a local search over
// single-GPU moves (add, remove, move between nodes, transfer between jobs)
// from the current allocation and from the genetic algorithm's best few.
// Allocations are kept sparse (each job's few (node, GPUs) entries), so a
// candidate costs O(jobs) rather than O(jobs × nodes), and the genetic
// algorithm's work per round is capped (Options.MaxRowsPerRound): on very
// large problems the local search does the improving. Children are mutated
// and repaired in parallel on per-child random streams, so decisions do not
// depend on the number of cores. The reference uses NSGA-II with a second
// objective (cluster utility) and then picks the best power mean; we
// optimise the power mean directly.
//
// Under overload. A round considers every job holding GPUs and a window of
// the first waiting jobs in submission order (Options.WaitingPerGPU), so
// that its cost follows the cluster, not the queue, and jobs are admitted
// in arrival order; the policy then also decides incrementally
// (policies.Incremental), and the simulator visits only the jobs holding
// GPUs. A round in which every GPU is held by a different job on one GPU
// keeps the allocation without searching when it is provably the optimum
// (Options.SkipSettled). Neither binds unless more jobs are active than
// GPUs.
package pollux
