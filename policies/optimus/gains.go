package optimus

import "container/heap"

// gain is the run time job i saves with one more GPU; next is its step
// time on that many GPUs.
type gain struct {
	g    float64
	i    int
	next float64
}

// gainHeap orders gains largest first, ties to the earlier job: the order
// in which a scan of the jobs for the largest gain would pick them.
type gainHeap []gain

func (h gainHeap) Len() int { return len(h) }
func (h gainHeap) Less(a, b int) bool {
	if h[a].g != h[b].g {
		return h[a].g > h[b].g
	}
	return h[a].i < h[b].i
}
func (h gainHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *gainHeap) Push(x any)   { *h = append(*h, x.(gain)) }
func (h *gainHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *gainHeap) push(x gain) { heap.Push(h, x) }
func (h *gainHeap) pop() gain   { return heap.Pop(h).(gain) }
