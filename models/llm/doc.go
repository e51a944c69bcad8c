// Package llm models the speed and memory of training a dense transformer
// language model on typed GPUs with tensor (t), pipeline (p) and data (d)
// parallelism, fitted to public measurements (MosaicML llm-foundry's MPT
// benchmarks and Megatron-LM's weak-scaling table).
//
// An iteration of a job whose data-parallel replicas each run m
// micro-batches of b sequences of length s takes
//
//	compute per micro-batch  C = r·b·(6·N·s + A·12·L·h·s²) / (t·p) / (peak · e(h, b·s))
//	tensor parallel          X = (L/p) · k · ring(t, 2·b·s·h bytes, NVLink)      k = 4, 6 with recomputation
//	pipeline                 T = (m + p − 1) · (C + X)                          bubble (p−1)/(m+p−1)
//	data parallel            D = R + (L/p)·λ once per step (DDP, ZeRO-1),
//	                           m·(R + 2·(L/p)·λ) (ZeRO-2), m·(1.5·R + 3·(L/p)·λ) (ZeRO-3)
//	                         λ = 2·⌈log₂ d⌉·α across nodes, 0 inside one
//	                         R = ring(d, 2·N/(t·p) bytes, NVLink in a node, else q·NIC, q = PerNode/(t·p) ≥ 1)
//	exposed                  D − min(ω·D, the compute it can hide behind)
//	ring(n, B, bw)           = 2·(n−1)/n · B / bw
//	iteration                T + exposed
//
// with r = 4/3 under activation recomputation, e(h, x) = e_max/(1 + h₀/h +
// x₀/x) the fraction of peak the GEMMs reach, A the cost of an attention
// FLOP relative to a GEMM FLOP, α the latency of a collective across nodes
// per doubling of its group and ω the overlapped fraction of data-parallel traffic. e_max and A
// are one per software stack and GPU (an FSDP PyTorch stack with flash
// attention is not Megatron-LM of 2021); h₀, x₀, α and ω are shared.
// MemoryOf and CheckMemory decide which configurations fit on a GPU.
//
// For statistical efficiency it gives Pollux's gradient noise scale φ
// from published laws (noise.go): Kaplan et al.'s critical batch size
// B_crit(L) as the loss falls, which McCandlish et al. identify with the
// noise scale, and DeepSeek LLM's optimal batch against compute; the
// efficiency itself is models.GradStats.Efficiency.
//
// Where a job's GPUs sit (topology.go, placed.go, place.go): a Topology of
// 8-GPU NVLink nodes, optionally in racks under a spine oversubscribed O:1;
// PlacedStep times a job on a concrete Allocation, its ranks filled in
// one of two Layouts, tensor groups never across nodes and each
// data-parallel ring at the slowest link it crosses (1/O across racks);
// Plan is the fastest configuration on an allocation; Place chooses
// nodes for a job (fewest racks, then fewest nodes, then best fit).
//
// Of this module it imports models only. docs/llm.md holds the formulas with their sources and every measurement
// against its prediction.
package llm
