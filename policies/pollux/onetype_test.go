package pollux_test

import (
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/pollux"
)

func TestOneType(t *testing.T) {
	c := policies.NewCluster(
		policies.Pool{Type: "t4", Nodes: 2, GPUsPerNode: 4},
		policies.Pool{Type: "a100", Nodes: 1, GPUsPerNode: 8},
	)
	for _, tc := range []struct {
		name        string
		job         policies.Job
		alloc, want []int
	}{
		{"most GPUs win", policies.Job{}, []int{1, 1, 3}, []int{0, 0, 3}},
		{"ties go to the current type", policies.Job{Alloc: []int{0, 2, 0}}, []int{1, 1, 2}, []int{1, 1, 0}},
		{"ties without a current type go to the lowest node's", policies.Job{}, []int{2, 0, 2}, []int{2, 0, 0}},
		{"types not offered are dropped", policies.Job{Types: []string{"t4"}}, []int{1, 0, 6}, []int{1, 0, 0}},
		{"nothing offered", policies.Job{Types: []string{"t4"}}, []int{0, 0, 6}, nil},
		{"one type stays", policies.Job{}, []int{4, 4, 0}, []int{4, 4, 0}},
	} {
		if got := pollux.OneType(c, &tc.job, tc.alloc); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: OneType(%v) = %v, want %v", tc.name, tc.alloc, got, tc.want)
		}
	}
}
