// Package gavel implements the Gavel family of heterogeneity-aware
// scheduling policies (Narayanan et al., OSDI'20, "Heterogeneity-Aware
// Cluster Scheduling Policies for Deep Learning Workloads"), registered as
//
//   - gavel-las: max-min fairness (least attained service) over the jobs'
//     normalised throughputs, with priority weights per application;
//   - gavel-ftf: finish-time fairness, minimising the largest ρ (Themis's
//     fairness measure, as Gavel's finish-time-fairness policy);
//   - gavel-throughput: the largest sum of throughputs (raw steps per
//     second, as Gavel's code; option normalise: each job's throughputs
//     divided by their sum over types).
//
// Jobs run at the GPUs and batch size their users asked for (Traits
// UserGPUs, no adaptive batch). A policy's allocation is X[job][type], the
// fraction of time a job should spend on each GPU type, the solution of a
// linear program over the jobs' throughputs per type: optimizer steps per
// second at the requested GPUs (packed onto nodes of that type) and batch,
// taken from the ground truth through the oracle (its TypeIterTime), as
// Gavel uses throughputs measured offline. A job's isolated throughput, the
// normaliser of gavel-las and gavel-ftf, is its throughput on an equal
// share of the cluster: the GPUs water-filled over the jobs (a job asking
// for fewer GPUs than the level gets all it asks for), spread over the types
// it can use in proportion to their GPUs. gavel-throughput sums the raw
// throughputs, as Gavel's scheduler/policies/max_sum_throughput.py does
// (it computes the normalisation 1/Σ_k T_ik and never uses it); the
// option normalise divides each job's throughputs by their sum over
// types, so a job counts alike whatever its unit of work. The programs:
//
//	LAS:        max min_i Σ_k T_ik·X_ik / (iso_i·w_i), water-filled (see waterFill)
//	FTF:        min max_i (age_i + rem_i/Σ_k T_ik·X_ik) / (age_i + rem_i/iso_i)
//	throughput: max Σ_i Σ_k T_ik·X_ik            (normalise: T_ik / Σ_k T_ik)
//	subject to  Σ_k X_ik ≤ 1,  Σ_i gpus_i·X_ik ≤ GPUs_k,  X ≥ 0,
//
// with X_ik = 0 where job i has no tables for type k or more GPUs than the
// type. FTF is solved by bisection on ρ over max-min programs (ρ_i ≤ ρ is
// linear in X for fixed ρ). All three are solved by the package's own
// simplex method (LP), in pure Go; identical jobs (same throughputs, GPUs
// and weight) share one row, which keeps the programs of gavel-las and
// gavel-throughput small on large clusters.
//
// # Rounds
//
// Gavel realises X with rounds (default 6 minutes, option round_s): at
// each round boundary every (job, type) pair gets the priority X_ik divided
// by the job's share of type k (infinite for a share of 0). By default
// (option share=type) the share is as Gavel's code computes it
// (scheduler/scheduler.py _update_priorities, and the Sia artifact's copy
// sia-simulator/gavel.py update_priorities): the seconds the job has run on
// k over all jobs' seconds on k, each job starting at half a round on
// every type when it arrives and each round adding a round's length; the
// Sia artifact never resets these sums (its reset is commented out), and
// neither do we. With share=job it is the share of the job's own rounds
// since its arrival that it ran on k. Pairs are taken in decreasing priority
// (ties: larger X, then the job's current type, then submission order),
// each job at most once, while its type has GPUs for it; pairs with X = 0
// come last, so GPUs the program leaves idle go to waiting jobs. A job that
// continues on its type keeps its nodes (Gavel's lease extension); the
// others are placed on the nodes of their type with the most free GPUs.
//
// Our engine calls the policy every scheduling interval (60 s by default).
// A round begins at the first call at or after the previous round's start
// plus round_s (with the defaults, every sixth call; with an interval that
// does not divide round_s, rounds last round_s rounded up to whole
// intervals). Between boundaries the policy returns the round's
// allocations unchanged: a job finishing mid-round leaves its GPUs idle
// until the boundary and an arriving job waits for it, as with Gavel's
// round-long leases. A job that changes placement at a boundary (resumed
// after a preemption, moved to another type) pays the engine's restart
// delay, a first start included.
//
// Three options follow Gavel's code as the Sia artifact runs it, where
// its choices are implementation details the paper leaves open:
// placement=workers assigns GPUs as its worker-id bookkeeping does
// (workers.go), ties=type orders pairs of equal priority and X by the
// types' order before submission order, as its stable sort of the
// per-type queues, and lp=interior (gavel-throughput) solves the program
// by an interior-point method, whose answer where the optimum is not
// unique is the centre of the optimal face, as ECOS's (interior.go).
//
// # Deviations from Gavel
//
// No space sharing (Gavel's packing variants) and no placement
// sensitivity: a job's throughput on a type is that of its GPUs packed
// onto as few nodes as possible. X is recomputed at every round boundary
// (gavel-las and gavel-throughput reuse it while the set of jobs is
// unchanged). The time sums of share=type are never reset, as in the Sia
// artifact's Gavel (Gavel's own scheduler resets them when it recomputes
// the allocation, at most once per reset interval). gavel-las
// water-fills: Gavel's basic max-min program only raises the smallest
// normalised throughput, so one job capped by its own time (Σ_k X = 1)
// limits every other job to its level and leaves GPUs unallocated; its
// water-filling variant lifts the others, which ours does by progressive
// filling (exact on one GPU type, a heuristic on several).
package gavel
