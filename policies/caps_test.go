package policies

import (
	"testing"

	"github.com/polluxsim/polluxsim/models"
)

func TestGPUCap(t *testing.T) {
	lim := models.Limits{InitBatch: 128, MaxBatch: 4096, MinLocal: 32, MaxLocal: 1024}
	for _, tc := range []struct {
		name   string
		job    Job
		traits Traits
		want   int
	}{
		{"requested batch / MinLocal", Job{Request: Request{GPUs: 2, Batch: 256}, Limits: lim}, Traits{}, 8},
		{"largest batch / MinLocal when adaptive", Job{Request: Request{GPUs: 2, Batch: 256}, Limits: lim}, Traits{AdaptiveBatch: true}, 128},
		{"application cap", Job{Request: Request{GPUs: 2, Batch: 256}, Limits: lim, MaxGPUs: 3}, Traits{AdaptiveBatch: true}, 3},
		{"batch below one GPU's minimum", Job{Request: Request{GPUs: 1, Batch: 16}, Limits: lim}, Traits{}, 1},
		{"the request under UserGPUs", Job{Request: Request{GPUs: 4, Batch: 64}, Limits: lim, MaxGPUs: 1}, Traits{UserGPUs: true}, 4},
		{"no limits", Job{Request: Request{GPUs: 1, Batch: 64}}, Traits{}, 0},
		{"only the application cap", Job{Request: Request{GPUs: 1, Batch: 64}, MaxGPUs: 2}, Traits{}, 2},
	} {
		if got := GPUCap(&tc.job, tc.traits); got != tc.want {
			t.Errorf("%s: GPUCap = %d, want %d", tc.name, got, tc.want)
		}
	}
}
