package optimus

import "github.com/polluxsim/polluxsim/internal/minheap"

// gain is the run time job i saves with one more GPU; next is its step
// time on that many GPUs.
type gain struct {
	g    float64
	i    int
	next float64
}

// Before orders gains largest first, ties to the earlier job: the order in
// which a scan of the jobs for the largest gain would pick them.
func (a *gain) Before(b *gain) bool {
	if a.g != b.g {
		return a.g > b.g
	}
	return a.i < b.i
}

// gainHeap is a binary heap of gains, best first (internal/minheap). A job
// is in it at most once, so the order is total and pops come in one order.
type gainHeap []gain

func (h *gainHeap) push(x gain) { *h = minheap.Push(*h, x) }

func (h *gainHeap) pop() gain {
	top, q := minheap.Pop(*h)
	*h = q
	return top
}
