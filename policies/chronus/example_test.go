package chronus_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/chronus"
)

// A job of 4 GPUs running 250 s alone, with 100-s leases, reserves
// 279 s, three leases; submitted before lease 1 with a deadline at 400 s it
// may use leases 1, 2 and 3 (0, 1, 2 counted from lease 1). Packed with a
// 2-GPU job that needs the first of them, on 4 GPUs, the 4-GPU job, packed
// first, fills all three, and the set is refused: the second job would not
// be admitted.
func ExamplePack() {
	est := chronus.Estimate(250, 4, 100)
	need, last := chronus.Leases(est, 100), chronus.LastLease(400, 100, 1)
	plans, ok := chronus.Pack(nil, 4, []chronus.Demand{{GPUs: 4, Need: need, Max: last}, {GPUs: 2, Need: 1, Max: 1}})
	fmt.Println(est, need, last, plans, ok)
	// Output:
	// 279 3 3 [[0 1 2] []] false
}
