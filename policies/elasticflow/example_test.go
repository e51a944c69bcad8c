package elasticflow_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/elasticflow"
)

// A job whose run time alone is 30 + 2000/k seconds on k GPUs, with 300 s
// left: its curve's powers of two and its minimum satisfactory share, the
// fewest GPUs that finish it in time (2000/(300 − 30) ≈ 7.4, so 8).
func ExampleMinShareAlone() {
	curve := elasticflow.Levels(64, func(k int) float64 { return 30 + 2000/float64(k) })
	fmt.Println(len(curve), "levels, from", curve[0].GPUs, "to", curve[len(curve)-1].GPUs, "GPUs")
	fmt.Println("share:", elasticflow.MinShareAlone(curve, 300))
	// Output:
	// 7 levels, from 1 to 64 GPUs
	// share: 8
}
