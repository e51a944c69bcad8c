// Package minheap is a binary min-heap kept in a slice, for element types
// that order themselves (the engine's events, Optimus+Oracle's gains). It
// is container/heap without the interface boxing: elements stay values in
// the slice, and the comparison is a method of the element's pointer.
package minheap

// Ordered is implemented by *T when T has a strict total order: Before
// reports whether the receiver comes first.
type Ordered[T any] interface {
	*T
	Before(*T) bool
}

// Push appends x to the heap q and restores the heap order.
func Push[T any, P Ordered[T]](q []T, x T) []T {
	q = append(q, x)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !P(&q[i]).Before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	return q
}

// Pop removes the first element of the non-empty heap q and returns it
// with the heap that remains.
func Pop[T any, P Ordered[T]](q []T) (T, []T) {
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
		if r := l + 1; r < n && P(&q[r]).Before(&q[l]) {
			m = r
		}
		if !P(&q[m]).Before(&q[i]) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	return top, q
}
