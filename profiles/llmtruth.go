package profiles

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/models/llm"
)

// llmTruth is the ground truth of an llm-set application on one GPU type:
// step times from models/llm (through llmStep), the noise scale of its
// kind along the run, progress in steps at the initial batch.
type llmTruth struct {
	def     *llmDef
	cal     llm.Calibration
	gpu     llm.GPU
	minGPUs int

	mu    sync.Mutex
	steps map[string][2]float64 // by placement and per-GPU batch
}

var _ NetworkTruth = (*llmTruth)(nil)

// maxLLMGPUs bounds the search for the fewest GPUs a model fits in.
const maxLLMGPUs = 1 << 16

func newLLMTruth(d *llmDef, cal llm.Calibration, g llm.GPU) (*llmTruth, error) {
	t := &llmTruth{def: d, cal: cal, gpu: g, steps: map[string][2]float64{}}
	// Fully sharded data parallelism at one sequence per micro-batch with
	// recomputation fits on every K from the first that fits (the states
	// per GPU fall as 1/K, the rest is fixed); below it other
	// configurations may still fit, down to minGPUs, each K of the run
	// fitting.
	k := 1
	for ; k <= maxLLMGPUs; k++ {
		sh := llm.FullShard
		if k == 1 {
			sh = llm.Replicated
		}
		c := llm.Parallelism{TP: 1, PP: 1, DP: k, MicroBatch: 1, MicroBatches: 1, Sharding: sh, Recompute: true, FlashAttention: llmSpace.Flash}
		if _, err := llm.CheckMemory(d.model, c, g); err == nil {
			break
		}
	}
	if k > maxLLMGPUs {
		return nil, fmt.Errorf("%s fits on no number of %s GPUs up to %d", d.model.Name, g.Name, maxLLMGPUs)
	}
	for k > 1 {
		_, ok, err := llmStep(cal, d.model, g, models.PackedPlacement(k-1, g.PerNode), Network{}, 1)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		k--
	}
	t.minGPUs = k
	return t, nil
}

// Step implements Truth. The per-GPU batch is rounded to whole sequences
// (at least 1). Training steps are models/llm's predicted step, with its
// exposed data-parallel traffic as the synchronisation part; an evaluation
// step is the forward pass: a third of the rest (2·N·s of 6·N·s FLOPs,
// Kaplan et al. 2020 §2.1), no synchronisation. On fewer GPUs than the
// model fits in (App.MinGPUs), where the simulator never runs a job, it
// answers as if the job ran on MinGPUs time-sliced onto them: the step on
// MinGPUs packed GPUs times ⌈MinGPUs/K⌉.
func (t *llmTruth) Step(placement []int, local float64) (step, sync float64) {
	return t.StepAcross(placement, Network{}, local)
}

// StepAcross implements NetworkTruth: Step on a placement whose nodes sit
// in n's racks, its data-parallel rings slowed where they cross racks
// (llm.Calibration.Plan on the racks' topology). Below MinGPUs, as Step.
func (t *llmTruth) StepAcross(placement []int, n Network, local float64) (step, sync float64) {
	l := max(1, int(math.Round(local)))
	k := 0
	for _, g := range placement {
		k += max(g, 0)
	}
	if k < t.minGPUs {
		s, y := t.step(models.PackedPlacement(t.minGPUs, t.gpu.PerNode), Network{}, l)
		f := math.Ceil(float64(t.minGPUs) / float64(max(k, 1)))
		return s * f, y * f
	}
	if !n.spansRacks() || len(n.Racks) != nonZero(placement) {
		n = Network{}
	}
	return t.step(placement, n, l)
}

// step is the memoised step of a placement of at least minGPUs GPUs in
// network n (the zero Network, or racks of each non-zero entry).
func (t *llmTruth) step(placement []int, n Network, local int) (step, sync float64) {
	key := llmKey(placement, n, local)
	t.mu.Lock()
	v, ok := t.steps[key]
	t.mu.Unlock()
	if ok {
		return v[0], v[1]
	}
	c, fits, err := llmStep(t.cal, t.def.model, t.gpu, placement, n, local)
	switch {
	case err == nil && fits:
		step, sync = c.Step.Time, c.Step.DataExposed
		if t.def.kind == LLMEval {
			step, sync = (step-sync)/3, 0
		}
	case local > 1:
		// More sequences per GPU than any configuration holds at once
		// (pipelines keep more micro-batches in flight): local steps of
		// one sequence each.
		s, y := t.step(placement, n, 1)
		step, sync = float64(local)*s, float64(local)*y
	default:
		// Not reached: every K ≥ minGPUs fits one sequence per GPU.
		panic(fmt.Sprintf("profiles: %s does not fit on %v %s GPUs (%v)", t.def.name, placement, t.gpu.Name, err))
	}
	t.mu.Lock()
	t.steps[key] = [2]float64{step, sync}
	t.mu.Unlock()
	return step, sync
}

// llmKey identifies a placement and a per-GPU batch: on one tier the
// placement's non-zero nodes in order of size; across racks its shares in
// order with each rack's first share marked (racks renumbered in order of
// appearance: only which shares share a rack, and their order, matter)
// and the oversubscription.
func llmKey(placement []int, n Network, local int) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(local))
	if len(n.Racks) > 0 {
		b.WriteString(";o=")
		b.WriteString(strconv.FormatFloat(n.Oversub, 'g', -1, 64))
		i := 0
		for _, g := range placement {
			if g == 0 {
				continue
			}
			if i == 0 || n.Racks[i] != n.Racks[i-1] {
				b.WriteByte('|')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(g))
			i++
		}
		return b.String()
	}
	var nodes []int
	for _, g := range placement {
		if g > 0 {
			nodes = append(nodes, g)
		}
	}
	slices.Sort(nodes)
	for _, g := range nodes {
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(g))
	}
	return b.String()
}

// Grad implements Truth: the noise scale of the epoch (segment) of the
// run, whatever the batch.
func (t *llmTruth) Grad(_ float64, epoch int) models.GradStats {
	return t.def.grads[min(max(epoch, 0), len(t.def.grads)-1)]
}

// segment is the progress of one epoch: its tokens in steps at the
// initial batch.
func (t *llmTruth) segment() float64 {
	d := t.def
	return d.tokens / float64(d.epochs) / (float64(d.m0) * float64(d.model.SeqLen))
}

// Progress implements Truth.
func (t *llmTruth) Progress(epoch int) float64 {
	return float64(min(max(epoch, 0), t.def.epochs)) * t.segment()
}

// Iterations implements Truth: each epoch's progress over the gain of a
// step at batch, summed to the end of epoch.
func (t *llmTruth) Iterations(batch float64, epoch int) float64 {
	m0, seg, it := float64(t.def.m0), t.segment(), 0.0
	for e := 0; e <= min(epoch, t.def.epochs-1); e++ {
		it += seg / t.Grad(batch, e).Gain(m0, batch)
	}
	return it
}
