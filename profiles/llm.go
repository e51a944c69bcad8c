package profiles

import (
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/models/llm"
)

// LLMSource names the built-in profile set of LLM-era transformer jobs
// (see LLM).
const LLMSource = "llm"

// LLM job kinds, the job types of Acme (Hu et al., NSDI'24) that train or
// run a model; the suffix of an application's name (none for
// pre-training).
const (
	LLMPretrain = "pretrain"
	LLMSFT      = "sft"
	LLMEval     = "eval"
	LLMDebug    = "debug"
)

// LLMKinds lists the job kinds in a fixed order.
func LLMKinds() []string { return []string{LLMPretrain, LLMSFT, LLMEval, LLMDebug} }

// LLMSizes lists the model sizes of the llm profile set, smallest first.
func LLMSizes() []string {
	var s []string
	for _, m := range llmModels {
		s = append(s, m.size)
	}
	return s
}

// LLMAppName is the application of the llm set for a model size and a job
// kind: "llm-7b" pre-trains a 7B model, "llm-7b-sft" fine-tunes it.
func LLMAppName(size, kind string) string {
	if kind == LLMPretrain {
		return "llm-" + size
	}
	return "llm-" + size + "-" + kind
}

// llmModel is one model of the set: its architecture as published.
type llmModel struct {
	size string
	arch llm.Transformer
}

// llmModels are the set's models (docs/llm.md, "The llm profile set").
// TinyLlama 1.1B (Zhang et al. 2024); Llama 2 7B, 13B and 70B (Touvron et
// al. 2023, "Llama 2", Table 1 and §2.2: 4,096-token context; 70B uses
// grouped-query attention, which the step model counts as multi-head at
// the published parameter count); LLaMA 33B (Touvron et al. 2023,
// "LLaMA", Table 2: 2,048-token context).
var llmModels = []llmModel{
	{"1b", llm.Transformer{Name: "tinyllama-1.1b", Params: 1.1e9, Layers: 22, Hidden: 2048, Heads: 32, Vocab: 32000, SeqLen: 2048}},
	{"7b", llm.Transformer{Name: "llama2-7b", Params: 6.74e9, Layers: 32, Hidden: 4096, Heads: 32, Vocab: 32000, SeqLen: 4096}},
	{"13b", llm.Transformer{Name: "llama2-13b", Params: 13.0e9, Layers: 40, Hidden: 5120, Heads: 40, Vocab: 32000, SeqLen: 4096}},
	{"30b", llm.Transformer{Name: "llama-33b", Params: 32.5e9, Layers: 60, Hidden: 6656, Heads: 52, Vocab: 32000, SeqLen: 2048}},
	{"70b", llm.Transformer{Name: "llama2-70b", Params: 69.0e9, Layers: 80, Hidden: 8192, Heads: 64, Vocab: 32000, SeqLen: 4096}},
}

// Assumptions of the set (docs/llm.md states each with its source).
const (
	// llmTokensPerParam is a pre-training job's budget: Chinchilla's
	// compute-optimal 20 tokens per parameter (Hoffmann et al. 2022).
	llmTokensPerParam = 20
	// llmDebugTokens is a debug job's budget: a short run of the
	// pre-training configuration (an assumption).
	llmDebugTokens = 1e9
	// llmSFTSequences and llmSFTEpochs make a fine-tuning job's budget:
	// two epochs (Llama 2 §3.1) over 100,000 sequences (an assumption:
	// Acme does not publish its datasets).
	llmSFTSequences, llmSFTEpochs = 100_000, 2
	// llmSFTBatch is a fine-tuning job's initial batch in sequences
	// (Llama 2 §3.1: 64), and llmSFTMaxBatch its largest.
	llmSFTBatch, llmSFTMaxBatch = 64, 512
	// llmEvalTokens is an evaluation job's forward-only budget (an
	// assumption), llmEvalBatch its initial batch and llmEvalMaxBatch its
	// largest, in sequences.
	llmEvalTokens                 = 1e8
	llmEvalBatch, llmEvalMaxBatch = 64, 1024
	// llmWarmupTokens is a pre-training or debug job's initial batch M0
	// in tokens: where GPT-3's batch-size warm-up starts (Brown et al.
	// 2020, Appendix B: 32k tokens, ramped up over the first billions of
	// tokens), the schedule Pollux's adaptation replaces.
	llmWarmupTokens = 32768
	// llmMaxBatchFactor is a pre-training or debug job's largest batch
	// over DeepSeek's optimal one (an assumption).
	llmMaxBatchFactor = 2
	// llmMaxLocal is the largest per-GPU batch in sequences per step the
	// jobs may use (micro-batches inside it are the step model's choice).
	llmMaxLocal = 16
	// llmPretrainSegments is the number of segments ("epochs") of a
	// pre-training run along which the noise scale grows.
	llmPretrainSegments = 20
	// llmEvalVar makes an evaluation job's noise scale effectively
	// infinite: no gradients, so every batch is as efficient as M0.
	llmEvalVar = 1e12
)

// llmGPUs are the GPU types the set runs on, the first its base type.
var llmGPUs = []string{"h100", "a100-80gb", "a100-40gb"}

// LLM returns the built-in llm profile set: for each model of LLMSizes and
// each job kind of LLMKinds an application (LLMAppName) whose step time
// comes from models/llm's fitted transformer model on h100, a100-80gb and
// a100-40gb nodes of 8 GPUs, whose gradient noise scale follows Kaplan et
// al.'s laws as the loss falls over a run (pre-training, debug) or is
// held at the converged base model's (fine-tuning), and whose evaluation
// jobs have no statistical cost of batch size. Its Source and Digest are
// "llm". Each call returns a new Set.
func LLM() *Set {
	set := &Set{Source: LLMSource, Digest: LLMSource, Apps: map[string]*App{}}
	cal := llm.Fitted()
	for _, m := range llmModels {
		for _, kind := range LLMKinds() {
			def := newLLMDef(m, kind)
			app, err := def.app(cal)
			if err != nil {
				// The set's constants are part of the build and checked by tests.
				panic(fmt.Sprintf("profiles: broken llm set: %v", err))
			}
			set.Apps[app.Name] = app
		}
	}
	return set
}

// llmDef is one application of the set before it is bound to a GPU type.
type llmDef struct {
	name   string
	kind   string
	model  llm.Transformer
	m0     int     // initial batch, sequences
	maxB   int     // largest batch, sequences
	tokens float64 // budget
	epochs int
	grads  []models.GradStats // per epoch
}

func newLLMDef(m llmModel, kind string) *llmDef {
	a := m.arch
	s := float64(a.SeqLen)
	pretrain := llmTokensPerParam * a.Params
	d := &llmDef{name: LLMAppName(m.size, kind), kind: kind, model: a}
	// The batch a user trains a pre-training job at: DeepSeek LLM's
	// near-optimal batch for the run's compute 6·N·D, in sequences, to a
	// power of two (LLMRequestBatch).
	full := LLMRequestBatch(a, pretrain)
	nonEmb := 12 * float64(a.Layers) * float64(a.Hidden) * float64(a.Hidden)
	switch kind {
	case LLMPretrain, LLMDebug:
		d.m0, d.maxB = max(1, llmWarmupTokens/a.SeqLen), llmMaxBatchFactor*full
		d.tokens, d.epochs = pretrain, llmPretrainSegments
		if kind == LLMDebug {
			d.tokens, d.epochs = llmDebugTokens, 1
		}
		seg := d.tokens / float64(d.epochs)
		for e := range d.epochs {
			loss := llm.LossAfter(nonEmb, (float64(e)+0.5)*seg, float64(d.m0)*s)
			d.grads = append(d.grads, llm.GradStatsAt(loss, a.SeqLen, float64(d.m0)))
		}
	case LLMSFT:
		d.m0, d.maxB = llmSFTBatch, llmSFTMaxBatch
		d.tokens, d.epochs = llmSFTSequences*llmSFTEpochs*s, llmSFTEpochs
		// The base model has converged: its loss, and so its noise scale,
		// are those at the end of its pre-training run, all along.
		loss := llm.LossAfter(nonEmb, pretrain, float64(full)*s)
		for range d.epochs {
			d.grads = append(d.grads, llm.GradStatsAt(loss, a.SeqLen, float64(d.m0)))
		}
	case LLMEval:
		d.m0, d.maxB = llmEvalBatch, llmEvalMaxBatch
		d.tokens, d.epochs = llmEvalTokens, 1
		d.grads = []models.GradStats{{Sqr: 1, Var: llmEvalVar}}
	}
	return d
}

// LLMRequestBatch is the batch, in sequences, a user trains model m at
// for a run of tokens tokens: DeepSeek LLM's near-optimal batch for the
// run's compute 6·N·D, to the nearest power of two.
func LLMRequestBatch(m llm.Transformer, tokens float64) int {
	return pow2(llm.DeepSeekOptimalBatchTokens(6*m.Params*tokens) / float64(m.SeqLen))
}

// pow2 is the power of two nearest x in log scale, at least 1.
func pow2(x float64) int {
	return 1 << max(0, int(math.Round(math.Log2(x))))
}

// app builds the application: its base type is the set's first GPU type,
// and it has a profile on each.
func (d *llmDef) app(cal llm.Calibration) (*App, error) {
	byType := map[string]*App{}
	for _, name := range llmGPUs {
		g, err := llm.GPUType(name)
		if err != nil {
			return nil, err
		}
		tr, err := newLLMTruth(d, cal, g)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", d.name, name, err)
		}
		byType[name] = d.typed(name, tr)
	}
	base := *byType[llmGPUs[0]]
	base.ByType = byType
	return &base, nil
}

// typed is the application on one GPU type.
func (d *llmDef) typed(gtype string, tr *llmTruth) *App {
	return &App{
		Name:             d.name,
		Limits:           models.Limits{InitBatch: d.m0, MaxBatch: d.maxB, MinLocal: 1, MaxLocal: llmMaxLocal},
		Epochs:           d.epochs,
		ValidatedBatches: []int{d.m0, d.maxB},
		MinGPUs:          tr.minGPUs,
		NodeGPUs:         tr.gpu.PerNode,
		Truth:            tr,
		Type:             gtype,
	}
}
