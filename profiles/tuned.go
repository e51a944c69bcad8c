package profiles

import (
	"math"

	"github.com/polluxsim/polluxsim/models"
)

// TunedConfig is one "TunedJobs" configuration of an application: a GPU
// count, a total batch size and the predicted job completion time in
// seconds when running exclusively at that configuration.
type TunedConfig struct {
	Replicas int     `json:"replicas"`
	Batch    int     `json:"batch"`
	JCT      float64 `json:"jct"`
}

// tunedReplicas are the GPU counts the reference tries.
var tunedReplicas = [...]int{1, 2, 4, 6, 8, 12, 16, 24, 32, 48}

// Bounds of the TunedJobs selection (as in the reference workload
// generator): predicted run time under 12 hours and scaling efficiency
// against one GPU strictly between 50 % and 80 %.
const (
	tunedMaxJCT  = 12 * 3600
	tunedLoUtil  = 0.5
	tunedHiUtil  = 0.8
	defaultPacks = 4
)

// TunedConfigs reproduces the candidate configurations from which the
// reference workload generator draws each job's GPU count and batch size
// ("TunedJobs"). For each GPU count r in 1, 2, 4, 6, 8, 12, 16, 24, 32, 48
// (stopping once r·MinLocal exceeds MaxBatch), on a packed placement
// (gpusPerNode GPUs per node, the remainder on the last node), and for each
// validated batch size B: the per-GPU batch is ceil(B/r); if it is below
// MinLocal, B is skipped; otherwise it is split into s+1 micro-steps of at
// most MaxLocal, and the predicted completion time is
// Iterations(B, Epochs−1) × (step + s·(step − sync)). The best B per GPU
// count is kept; the one-GPU time is the base. A GPU count is a candidate
// if its time is under 12 hours and base/(time·r) lies strictly between 0.5
// and 0.8. If none qualifies, the result is the single one-GPU
// configuration. gpusPerNode < 1 means 4, the reference's.
//
// If app.Tuned is set (compact models carry the candidates computed from
// the measured tables) and gpusPerNode is 4, a copy of it is returned.
func TunedConfigs(app *App, gpusPerNode int) []TunedConfig {
	if gpusPerNode < 1 {
		gpusPerNode = defaultPacks
	}
	if len(app.Tuned) > 0 && gpusPerNode == defaultPacks {
		return append([]TunedConfig(nil), app.Tuned...)
	}
	lim := app.Limits
	var out []TunedConfig
	var base TunedConfig
	for _, r := range tunedReplicas {
		if r*lim.MinLocal > lim.MaxBatch {
			break
		}
		placement := models.PackedPlacement(r, gpusPerNode)
		best := TunedConfig{Replicas: r, JCT: math.Inf(1)}
		for _, b := range app.ValidatedBatches {
			local := int(models.CeilBatch(float64(b) / float64(r)))
			if local < lim.MinLocal {
				continue
			}
			atomic, s := models.SplitLocal(float64(local), lim.MaxLocal, 0)
			iter, _, _ := app.IterTime(placement, atomic, s)
			jct := app.Truth.Iterations(float64(b), app.Epochs-1) * iter
			if jct < best.JCT {
				best.Batch, best.JCT = b, jct
			}
		}
		if best.Batch == 0 {
			continue
		}
		if r == 1 {
			base = best
			continue
		}
		if base.Batch == 0 {
			continue
		}
		util := base.JCT / best.JCT / float64(r)
		if best.JCT < tunedMaxJCT && util > tunedLoUtil && util < tunedHiUtil {
			out = append(out, best)
		}
	}
	if len(out) == 0 && base.Batch != 0 {
		out = append(out, base)
	}
	return out
}
