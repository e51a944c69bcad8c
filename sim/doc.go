// Package sim is the discrete-event engine of polluxsim: a cluster of GPU
// nodes (Config.Cluster: identical nodes, or node pools of several GPU
// types and sizes; Config.Elastic: nodes added and removed by an
// autoscaler), jobs arriving from a workload, a scheduling policy called
// every interval, and each job progressing by its application's true
// profile between events. A job holds GPUs of one type at a time; a
// change of type is a restart.
//
// Time. Events carry exact float times: job arrivals, scheduling ticks
// (every Config.Interval seconds), the end of a restart after a
// re-allocation, epoch boundaries (where a job re-tunes its batch size) and
// completions. Between events a job's progress rate is constant, so
// completion times are solved exactly, not rounded to ticks. With
// Config.Step the engine instead behaves like the reference (adaptdl)
// simulator: epoch crossings are rounded to whole seconds and a crossing
// that falls past a tick is taken up after the tick.
//
// Progress. Progress is counted in iterations at the initial batch size
// M0 (scale-invariant): a job at total batch M advances by
// gain(M)/T_iter per second, where gain = (var+sqr)/(var/S+sqr), S = M/M0,
// T_iter = step + s·(step − sync) from the true tables, times (1 −
// slowdown) when interference applies. A job is done when its progress
// reaches its application's target.
//
// What policies see. The engine emulates each job's agent: it records the
// configurations the job ran and their iteration times, refits θ_sys with
// models.Fit whenever a new configuration is observed, and takes the
// gradient statistics of the current batch and epoch. Policies receive only
// that (package policies); ground truth goes only to policies that declare
// an oracle.
//
// Recording and limits. After every round the engine appends one
// RoundStat and emits per-job RoundRecords as Config.Rounds selects (all,
// changes only, none), to Config.RoundSink as the run goes or into
// Result.Rounds; it keeps a list of the active jobs and drops a finished
// job's agent state, so memory follows the active jobs (and, through
// Config.MaxRounds, the one small record per round stays bounded).
// CheckFeasible refuses up front a workload whose lower bounds of
// simulated time, rounds or work (active jobs summed over rounds) pass
// Config.MaxTime, Config.MaxRounds or Config.MaxJobRounds; the engine
// stops a run that passes any of them.
//
// Incremental rounds. When the policy implements policies.Incremental and
// the run qualifies (Incremental), each round visits only the jobs holding
// GPUs and those that arrived, finished or changed: the policy is told what
// changed (ScheduleIncremental) and returns the allocations that change. The results are those
// of full rounds. Such a run's work limit counts the jobs its rounds visit,
// and CheckFeasible does not apply the work bound to it.
//
// Invariants are checked as the simulation runs: no node over capacity,
// time never going back, progress never beyond the target, every job
// ending. A violation stops the run with an error that names the event.
package sim
