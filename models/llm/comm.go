package llm

// RingAllReduce is the time of a ring all-reduce of bytes over n ranks
// whose slowest link carries bw bytes/s each way: every rank sends and
// receives 2·(n−1)/n·bytes (a reduce-scatter and an all-gather of n−1
// chunks each). Zero for n ≤ 1.
func RingAllReduce(n int, bytes, bw float64) float64 {
	if n <= 1 {
		return 0
	}
	return 2 * float64(n-1) / float64(n) * bytes / bw
}

// PipelineBubble is the idle fraction of a synchronous 1F1B (or GPipe)
// pipeline of p stages running m micro-batches: (p−1)/(m+p−1).
func PipelineBubble(p, m int) float64 {
	if p <= 1 {
		return 0
	}
	return float64(p-1) / float64(m+p-1)
}
