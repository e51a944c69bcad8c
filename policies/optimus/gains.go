package optimus

// gain is the run time job i saves with one more GPU; next is its step
// time on that many GPUs.
type gain struct {
	g    float64
	i    int
	next float64
}

// before orders gains largest first, ties to the earlier job: the order in
// which a scan of the jobs for the largest gain would pick them.
func (a *gain) before(b *gain) bool {
	if a.g != b.g {
		return a.g > b.g
	}
	return a.i < b.i
}

// gainHeap is a binary heap of gains, best first. A job is in it at most
// once, so the order is total and pops come in one order.
type gainHeap []gain

func (h *gainHeap) push(x gain) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *gainHeap) pop() gain {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q[r].before(&q[l]) {
			m = r
		}
		if !q[m].before(&q[i]) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}
