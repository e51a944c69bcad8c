package llm

import (
	"bytes"
	"embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

//go:embed data/llmfoundry.csv data/megatron.csv
var dataFS embed.FS

// Units of the measurements, as their sources publish them.
const (
	UnitTokens = "tokens/s/GPU"
	UnitTFLOPS = "TFLOP/s/GPU"
)

// Measurement is one published throughput measurement with the
// configuration that produced it.
type Measurement struct {
	// Source is the publication ("llm-foundry" or "megatron") and Row the
	// measurement's row in its embedded table (1-based, header excluded).
	Source string
	Row    int
	Job    Job
	// Measured is the published throughput in Unit.
	Measured float64
	Unit     string
	// Fit says whether the row is in the fitting subset (every third row
	// of each source, from its first); the others are held back.
	Fit bool
}

// Label names the measurement in tables and errors.
func (m Measurement) Label() string {
	c := m.Job.Par
	return fmt.Sprintf("%s %s s=%d %s t=%d p=%d d=%d b=%d m=%d", m.Source, m.Job.Model.Name, m.Job.Model.SeqLen,
		m.Job.GPU.Name, c.TP, c.PP, c.DP, c.MicroBatch, c.MicroBatches)
}

// Predict is the calibration's prediction of the measurement, in its Unit.
// Megatron-LM reports FLOP/s counted by its paper's Eq. 3,
// F = 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)) per step, so the prediction
// is F over the predicted step time and GPUs.
func (cal Calibration) Predict(m Measurement) (float64, error) {
	st, err := cal.Step(m.Job)
	if err != nil {
		return 0, err
	}
	n := m.Job.Par.GPUs()
	if m.Unit == UnitTFLOPS {
		return MegatronFLOPs(m.Job.Model, m.Job.Par.GlobalBatch()) / st.Time / float64(n) / 1e12, nil
	}
	return st.TokensPerGPUSecond(n), nil
}

// MegatronFLOPs is the FLOPs of one step of batch B sequences as Narayanan
// et al. 2021 (Eq. 3) count them, activation recomputation included:
// 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)).
func MegatronFLOPs(m Transformer, batch int) float64 {
	s, l, h := float64(m.SeqLen), float64(m.Layers), float64(m.Hidden)
	return 96 * float64(batch) * s * l * h * h * (1 + s/(6*h) + float64(m.Vocab)/(16*l*h))
}

// mptArch is the architecture of llm-foundry's MPT sizes (layers, hidden,
// heads), from its scripts/train/yamls/pretrain/mpt-<size>.yaml; all have
// a vocabulary of 50,368 and flash attention.
var mptArch = map[string][3]int{
	"125m": {12, 768, 12}, "350m": {24, 1024, 16}, "760m": {24, 1536, 12},
	"1b": {24, 2048, 16}, "3b": {32, 2560, 20}, "7b": {32, 4096, 32},
	"13b": {40, 5120, 40}, "30b": {48, 7168, 56}, "70b": {80, 8192, 64},
}

const (
	mptVocab      = 50368
	megatronVocab = 51200
	megatronSeq   = 2048
)

// Measurements returns the embedded measurements: llm-foundry's BF16
// benchmark rows (its FP8 rows are left out: the model has no FP8 path),
// then Megatron-LM's Table 1, each with its fit/held-back flag.
func Measurements() ([]Measurement, error) {
	a, err := readLLMFoundry()
	if err != nil {
		return nil, err
	}
	b, err := readMegatron()
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// table reads an embedded CSV whose header is want, calling row for each
// record with a parser of its fields.
func table(name string, want []string, row func(f fields) error) error {
	raw, err := dataFS.ReadFile("data/" + name)
	if err != nil {
		return err
	}
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = len(want)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for i, h := range want {
		if head[i] != h {
			return fmt.Errorf("%s: column %d is %q, want %q", name, i+1, head[i], h)
		}
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		f := fields{rec: rec, head: want}
		if err := row(f); err == nil {
			err = f.err
		}
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if f.err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, f.err)
		}
	}
}

// fields parses a record's columns by name, keeping the first error.
type fields struct {
	rec, head []string
	err       error
}

func (f *fields) str(col string) string {
	for i, h := range f.head {
		if h == col {
			return f.rec[i]
		}
	}
	if f.err == nil {
		f.err = fmt.Errorf("no column %s", col)
	}
	return ""
}

func (f *fields) num(col string) float64 {
	v, err := strconv.ParseFloat(f.str(col), 64)
	if err == nil && !(v > 0) {
		err = fmt.Errorf("not positive")
	}
	if err != nil && f.err == nil {
		f.err = fmt.Errorf("column %s: %q: %v", col, f.str(col), err)
	}
	return v
}

func (f *fields) int(col string) int {
	v := f.num(col)
	if v != float64(int(v)) && f.err == nil {
		f.err = fmt.Errorf("column %s: %q is not an integer", col, f.str(col))
	}
	return int(v)
}

var llmFoundryHeader = []string{"model", "seq_len", "gpus", "gpu", "micro_batch", "grad_accum", "global_batch",
	"tokens_per_s_per_gpu", "precision", "sharding", "activation_checkpointing", "num_params", "mfu_percent"}

func readLLMFoundry() ([]Measurement, error) {
	var out []Measurement
	err := table("llmfoundry.csv", llmFoundryHeader, func(f fields) error {
		arch, ok := mptArch[f.str("model")]
		if !ok {
			return fmt.Errorf("unknown MPT size %q", f.str("model"))
		}
		g, err := GPUType(f.str("gpu"))
		if err != nil {
			return err
		}
		var sh Sharding
		switch f.str("sharding") {
		case "FULL_SHARD":
			sh = FullShard
		case "SHARD_GRAD_OP":
			sh = ShardGradOp
		default:
			return fmt.Errorf("unknown sharding %q", f.str("sharding"))
		}
		m := Transformer{Name: "mpt-" + f.str("model"), Params: f.num("num_params"), Layers: arch[0],
			Hidden: arch[1], Heads: arch[2], Vocab: mptVocab, SeqLen: f.int("seq_len")}
		c := Parallelism{TP: 1, PP: 1, DP: f.int("gpus"), MicroBatch: f.int("micro_batch"),
			MicroBatches: f.int("grad_accum"), Sharding: sh,
			Recompute: f.str("activation_checkpointing") == "true", FlashAttention: true}
		if f.err == nil && c.GlobalBatch() != f.int("global_batch") {
			return fmt.Errorf("global batch %d is not gpus × micro-batch × accumulation = %d", f.int("global_batch"), c.GlobalBatch())
		}
		n := len(out)
		out = append(out, Measurement{Source: StackLLMFoundry, Row: n + 1, Job: Job{Model: m, Par: c, GPU: g, Stack: StackLLMFoundry},
			Measured: f.num("tokens_per_s_per_gpu"), Unit: UnitTokens, Fit: n%3 == 0})
		return f.err
	})
	return out, err
}

var megatronHeader = []string{"params_billion", "heads", "hidden", "layers", "tensor_parallel", "pipeline_parallel",
	"gpus", "batch", "tflops_per_gpu", "percent_of_peak", "aggregate_pflops"}

func readMegatron() ([]Measurement, error) {
	g := gpus["a100-80gb"] // Selene: DGX A100 80 GB nodes
	var out []Measurement
	err := table("megatron.csv", megatronHeader, func(f fields) error {
		l, h, t, p, n, batch := f.int("layers"), f.int("hidden"), f.int("tensor_parallel"), f.int("pipeline_parallel"), f.int("gpus"), f.int("batch")
		if f.err != nil {
			return f.err
		}
		if n%(t*p) != 0 || batch%(n/(t*p)) != 0 {
			return fmt.Errorf("%d GPUs and batch %d do not divide into t=%d p=%d replicas", n, batch, t, p)
		}
		d := n / (t * p)
		m := Transformer{Name: "gpt-" + f.str("params_billion") + "b", Params: GPTParams(l, h, megatronVocab, megatronSeq),
			Layers: l, Hidden: h, Heads: f.int("heads"), Vocab: megatronVocab, SeqLen: megatronSeq}
		// Micro-batch 1 is an assumption: Table 1 does not state it.
		c := Parallelism{TP: t, PP: p, DP: d, MicroBatch: 1, MicroBatches: batch / d, Sharding: Replicated, Recompute: true}
		k := len(out)
		out = append(out, Measurement{Source: StackMegatron, Row: k + 1, Job: Job{Model: m, Par: c, GPU: g, Stack: StackMegatron},
			Measured: f.num("tflops_per_gpu"), Unit: UnitTFLOPS, Fit: k%3 == 0})
		return f.err
	})
	return out, err
}
