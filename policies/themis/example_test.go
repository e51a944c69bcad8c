package themis_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/themis"
)

// Two jobs of 2 GPUs bid for 2 free GPUs; each values running now at 1/ρ
// and waiting a lease at 1/ρ' (ρ' > ρ). The first gains more from
// winning, so it wins, and keeps the GPUs for the fraction of the lease
// that its presence leaves to the other: 0.6 / 0.8.
func ExampleAuction() {
	won, c := themis.Auction([]int{2, 2}, []float64{1, 0.8}, []float64{0.5, 0.6}, 2)
	fmt.Printf("%v %.2f\n", won, c)
	// A job of 4 GPUs, 100 s run, 300 s left, at age 500, 4 jobs on 8 GPUs.
	fmt.Printf("%.3f\n", themis.Rho(500, 0, 100, 300, 4, 4, 8))
	// Output:
	// [true false] [0.75 0.00]
	// 1.143
}
