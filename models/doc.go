// Package models is the goodput core of Pollux (OSDI'21): the system
// throughput model, the statistical efficiency model based on the
// pre-conditioned gradient noise scale (PGNS), goodput, the per-allocation
// (m, s) optimiser, the fit of throughput parameters from observed iteration
// times, and learning-rate scaling rules.
//
// Everything here is a pure function of its inputs or a small value type, so
// the package can be imported unchanged by a simulator or by a live
// scheduler. It imports nothing else from this module.
//
// Notation (as in the paper): a job runs on K GPUs spread over N nodes, with
// per-GPU (atomic) batch size m and s gradient-accumulation steps, so the
// total batch size is M = K·m·(s+1). M0 is the user's initial batch size.
//
//	T_grad(m) = α_c + β_c·m
//	T_sync    = 0                          if K = 1
//	          = α_r + β_r·max(K−2, 0)       if N = 1
//	          = α_n + β_n·max(K−2, 0)       otherwise
//	T_iter    = s·T_grad + (T_grad^γ + T_sync^γ)^(1/γ)
//	THROUGHPUT = M / T_iter
//	EFFICIENCY(M) = (φ + M0) / (φ + M),   φ = M0·tr(Σ)/|g|²
//	GOODPUT    = THROUGHPUT · EFFICIENCY
package models
