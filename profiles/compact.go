package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/models"
)

// CompactFormat identifies the compact profile file format.
const CompactFormat = "polluxsim-compact-profiles/1"

// Bounds of a valid compact model; they keep every answer finite.
const (
	maxCompactEpochs = 100000
	maxParam         = 1e6
	maxLogRatioAbs   = 50.0
	maxBatchExponent = 5.0
)

// CompactFile is a set of compact application models with the provenance of
// the data they were derived from. It is what `polluxsim profiles derive`
// writes and what the embedded default profiles are.
type CompactFile struct {
	Format     string          `json:"format"`
	Provenance Provenance      `json:"provenance"`
	Apps       []*CompactModel `json:"apps"`
}

// Provenance records where a compact file's numbers come from.
type Provenance struct {
	// Source names the measured data (repository, branch, commit, folder).
	Source string `json:"source"`
	// License is the license of the source data.
	License string `json:"license,omitempty"`
	// DerivedBy names the program (and version) that derived the file.
	DerivedBy string `json:"derived_by"`
	// Method summarises how the numbers were derived.
	Method string `json:"method"`
}

// CompactModel describes one application by a few dozen numbers instead of
// measured tables: a fitted throughput model θ_sys with a small
// multiplicative correction surface over (nodes, GPUs per node), the
// gradient noise ratio var/sqr along training, and the application's
// limits and length.
type CompactModel struct {
	Name       string `json:"name"`
	InitBatch  int    `json:"init_batch"`
	MaxBatch   int    `json:"max_batch"`
	MinLocal   int    `json:"min_local"`
	MaxLocal   int    `json:"max_local"`
	Epochs     int    `json:"epochs"`
	FixedBatch int    `json:"fixed_batch,omitempty"`
	MaxGPUs    int    `json:"max_gpus,omitempty"`
	// LRScaler must be "adascale" (or absent): the simulator's progress
	// model is AdaScale's gain (see models.GradStats.Gain), whichever rule
	// a real job would use; the key exists for the files that carry it.
	LRScaler         string  `json:"lr_scaler,omitempty"`
	ValidatedBatches []int   `json:"validated_batches"`
	Target           float64 `json:"target"`
	// Throughput is θ_sys: step = c(N, K/N) · T_iter(N, K, m, 0) and the
	// compute-only part step − sync = c · T_grad(m).
	Throughput CompactThroughput `json:"throughput"`
	// Correction is c, piecewise bilinear in (nodes, GPUs per node) on its
	// knots, clamped outside them; stored as log c.
	Correction CompactCorrection `json:"correction"`
	// Noise is the gradient noise ratio var/sqr (at the initial batch
	// size) along training: log(var/sqr) is piecewise linear in the epoch
	// between knots and grows with the batch size as (B/B0)^BatchExponent.
	Noise CompactNoise `json:"noise"`
	// Steps is a second ratio curve of the same form, used only by
	// Iterations: the optimizer steps of epoch e at batch B are the
	// epoch's progress divided by the AdaScale gain of this ratio. It
	// differs from Noise where the recorded statistics do not describe the
	// whole epoch (e.g. the first epoch of yolov3, whose recorded noise
	// would predict ten times the steps the real run took).
	Steps CompactNoise `json:"steps"`
	// Tuned are the TunedJobs candidates (see TunedConfigs) computed from
	// the measured tables for 4-GPU nodes; TunedConfigs returns them for
	// this model instead of recomputing them from the compact throughput.
	Tuned []TunedConfig `json:"tuned,omitempty"`
}

// CompactThroughput is θ_sys (see models.Params) with named fields.
type CompactThroughput = models.NamedParams

// CompactCorrection is a multiplicative correction of the step time:
// LogFactor[i][j] is log c at Nodes[i] nodes and GPUsPerNode[j].
type CompactCorrection struct {
	Nodes       []float64   `json:"nodes"`
	GPUsPerNode []float64   `json:"gpus_per_node"`
	LogFactor   [][]float64 `json:"log_factor"`
}

// at returns c at n nodes with g GPUs per node.
func (c *CompactCorrection) at(n, g float64) float64 {
	if len(c.Nodes) == 0 {
		return 1
	}
	i0, i1, wi := knotBracket(c.Nodes, n)
	j0, j1, wj := knotBracket(c.GPUsPerNode, g)
	lo := lerp(c.LogFactor[i0][j0], c.LogFactor[i0][j1], wj)
	hi := lerp(c.LogFactor[i1][j0], c.LogFactor[i1][j1], wj)
	return math.Exp(lerp(lo, hi, wi))
}

// knotBracket returns the knots around x and the weight of the upper one,
// clamping outside the knots.
func knotBracket(knots []float64, x float64) (lo, hi int, w float64) {
	n := len(knots)
	if n == 1 || !(x > knots[0]) {
		return 0, 0, 0
	}
	if x >= knots[n-1] {
		return n - 1, n - 1, 0
	}
	hi = searchAbove(knots, x)
	lo = hi - 1
	return lo, hi, (x - knots[lo]) / (knots[hi] - knots[lo])
}

// CompactNoise is the gradient noise ratio along training.
type CompactNoise struct {
	// Epochs are the knot epochs (0-based, ascending) and LogRatio the
	// natural log of var/sqr at each, at the initial batch size.
	Epochs   []float64 `json:"epochs"`
	LogRatio []float64 `json:"log_ratio"`
	// BatchExponent κ scales the ratio at total batch B by (B/B0)^κ (B
	// clamped to the validated range).
	BatchExponent float64 `json:"batch_exponent"`
}

// compactTruth answers the Truth questions from a CompactModel.
type compactTruth struct {
	m      *CompactModel
	params models.Params
	// perEpoch is the progress of one epoch, Target/Epochs.
	perEpoch float64
	// logRatio[e] is the log ratio of Noise and stepRatio[e] the ratio
	// (not its log) of Steps, at the initial batch size in epoch e.
	logRatio, stepRatio []float64
	// fixed[e] + scaled[e]·B0/B are the steps to the end of epoch e at a
	// batch B below the initial one, B0 (see belowSteps).
	fixed, scaled []float64
}

func newCompactTruth(m *CompactModel) *compactTruth {
	t := &compactTruth{m: m, params: m.Throughput.Params(), perEpoch: m.Target / float64(m.Epochs)}
	t.logRatio = m.Noise.perEpoch(m.Epochs)
	t.stepRatio = m.Steps.perEpoch(m.Epochs)
	for e, v := range t.stepRatio {
		t.stepRatio[e] = math.Exp(v)
	}
	t.fixed, t.scaled = belowSteps(m.Epochs, float64(m.InitBatch), t.Progress, t.Grad)
	return t
}

// perEpoch evaluates the knots at every epoch 0..epochs-1.
func (nz *CompactNoise) perEpoch(epochs int) []float64 {
	out := make([]float64, epochs)
	for e := range out {
		i0, i1, w := knotBracket(nz.Epochs, float64(e))
		out[e] = lerp(nz.LogRatio[i0], nz.LogRatio[i1], w)
	}
	return out
}

// Step implements Truth. Only the node count N (non-zero entries) and the
// GPU count K of placement matter.
func (t *compactTruth) Step(placement []int, local float64) (step, sync float64) {
	return compactStep(t.params, &t.m.Correction, placement, local)
}

// compactStep is the step time of a compact throughput model: θ_sys's
// T_iter at N nodes and K GPUs of placement, times the correction c at
// (N, K/N); the compute-only part is c·T_grad.
func compactStep(params models.Params, corr *CompactCorrection, placement []int, local float64) (step, sync float64) {
	nodes, gpus := 0, 0
	for _, g := range placement {
		if g > 0 {
			nodes++
			gpus += g
		}
	}
	if gpus == 0 {
		return 0, 0
	}
	local = math.Min(math.Max(local, 0), maxMeasure) // NaN becomes 0
	if math.IsNaN(local) {
		local = 0
	}
	tIter := params.TIter(nodes, gpus, local, 0)
	tGrad := params.TGrad(local)
	c := corr.at(float64(nodes), float64(gpus)/float64(nodes))
	return c * tIter, c * math.Max(tIter-tGrad, 0)
}

// ratio returns var/sqr at total batch batch during epoch (clamped to the
// model's epochs).
func (t *compactTruth) ratio(batch float64, epoch int) float64 {
	return t.m.ratio(t.logRatio, t.m.Noise.BatchExponent, batch, epoch)
}

// ratio evaluates a ratio curve (per-epoch log ratios and batch exponent)
// at total batch batch (clamped to the validated range) during epoch
// (clamped to the model's epochs).
func (m *CompactModel) ratio(logRatio []float64, exponent, batch float64, epoch int) float64 {
	logR := logRatio[min(max(epoch, 0), len(logRatio)-1)]
	b := math.Min(math.Max(batch, float64(m.InitBatch)), float64(m.MaxBatch))
	return math.Exp(logR + exponent*math.Log(b/float64(m.InitBatch)))
}

// Grad implements Truth: Sqr is 1 and Var the modelled ratio var/sqr;
// efficiency and gain depend on nothing else.
func (t *compactTruth) Grad(batch float64, epoch int) models.GradStats {
	return models.GradStats{Sqr: 1, Var: t.ratio(batch, epoch)}
}

// Progress implements Truth: Target·e/Epochs (each epoch the same share),
// with e clamped to [0, Epochs].
func (t *compactTruth) Progress(epoch int) float64 {
	return t.perEpoch * float64(min(max(epoch, 0), t.m.Epochs))
}

// Iterations implements Truth: each epoch's progress divided by the gain
// of the Steps curve at batch during that epoch, summed over epochs
// 0..epoch (epoch clamped to the model's epochs). Below the initial batch
// size, where the Steps curve has no data, each epoch's progress is
// divided by the gain the simulator credits a step with there (Grad's,
// below 1), precomputed as two cumulative sums (belowSteps), so that the
// count is the steps a job at that batch takes; at the initial batch both
// gains are 1.
func (t *compactTruth) Iterations(batch float64, epoch int) float64 {
	m0 := float64(t.m.InitBatch)
	if batch < m0 && batch/m0 > 0 {
		return stepsBelow(t.fixed, t.scaled, batch/m0, epoch)
	}
	b := math.Min(math.Max(batch, m0), float64(t.m.MaxBatch))
	scale := b / m0
	factor := math.Pow(scale, t.m.Steps.BatchExponent)
	total := 0.0
	for e := 0; e <= min(max(epoch, 0), t.m.Epochs-1); e++ {
		rho := t.stepRatio[e] * factor
		// One step makes gain = (rho+1)/(rho/S+1) units of progress.
		total += t.perEpoch * (rho/scale + 1) / (rho + 1)
	}
	return total
}

// App returns the application the model describes; its Truth is the
// compact model.
func (m *CompactModel) App() *App {
	return &App{
		Name: m.Name,
		Limits: models.Limits{InitBatch: m.InitBatch, MaxBatch: m.MaxBatch,
			MinLocal: m.MinLocal, MaxLocal: m.MaxLocal},
		Epochs:           m.Epochs,
		FixedBatch:       m.FixedBatch,
		MaxGPUs:          m.MaxGPUs,
		ValidatedBatches: append([]int(nil), m.ValidatedBatches...),
		Tuned:            append([]TunedConfig(nil), m.Tuned...),
		Truth:            newCompactTruth(m),
	}
}

// Set returns the applications of the file as a Set with the given source.
func (f *CompactFile) Set(source string) *Set {
	s := &Set{Source: source, Apps: map[string]*App{}}
	for _, m := range f.Apps {
		s.Apps[m.Name] = m.App()
	}
	return s
}

// ParseCompact decodes and checks a compact profile file; name is used in
// error messages.
func ParseCompact(name string, data []byte) (*CompactFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f CompactFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonError(data, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", name)
	}
	if f.Format != CompactFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", name, f.Format, CompactFormat)
	}
	if len(f.Apps) == 0 {
		return nil, fmt.Errorf("%s: no applications", name)
	}
	var keys struct {
		Apps []map[string]json.RawMessage `json:"apps"`
	}
	_ = json.Unmarshal(data, &keys) // it decoded above
	seen := map[string]bool{}
	for i, m := range f.Apps {
		if m == nil {
			return nil, fmt.Errorf("%s: application %d is null", name, i)
		}
		if i < len(keys.Apps) {
			if err := missingKeys(keys.Apps[i]); err != nil {
				return nil, fmt.Errorf("%s: application %q: %w", name, m.Name, err)
			}
		}
		if err := m.validate(); err != nil {
			return nil, fmt.Errorf("%s: application %q: %w", name, m.Name, err)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("%s: application %q appears twice", name, m.Name)
		}
		seen[m.Name] = true
	}
	return &f, nil
}

// requiredKeys are the keys of an application that have no default: a
// missing one would read as 0 and be reported as a wrong value.
var requiredKeys = []string{"name", "init_batch", "max_batch", "min_local", "max_local", "epochs", "target", "throughput"}

// throughputKeys are the keys of CompactThroughput, all required.
var throughputKeys = []string{"alpha_c", "beta_c", "alpha_r", "beta_r", "alpha_n", "beta_n", "gamma"}

// missingKeys names the first required key an application's object lacks.
func missingKeys(app map[string]json.RawMessage) error {
	for _, k := range requiredKeys {
		if _, ok := app[k]; !ok {
			return fmt.Errorf("missing %q", k)
		}
	}
	var tp map[string]json.RawMessage
	if json.Unmarshal(app["throughput"], &tp) != nil {
		return nil // null: reported by validate
	}
	for _, k := range throughputKeys {
		if _, ok := tp[k]; !ok {
			return fmt.Errorf("missing %q", "throughput."+k)
		}
	}
	return nil
}

// jsonError adds the line of a syntax or type error.
func jsonError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// validate checks that the model answers every question with finite,
// sensible numbers.
func (m *CompactModel) validate() error {
	switch {
	case m.Name == "":
		return errors.New("empty name")
	case m.InitBatch < 1 || m.MaxBatch < m.InitBatch:
		return fmt.Errorf("batch range %d..%d is empty", m.InitBatch, m.MaxBatch)
	case m.MinLocal < 1 || m.MaxLocal < m.MinLocal:
		return fmt.Errorf("per-GPU batch range %d..%d is empty", m.MinLocal, m.MaxLocal)
	case m.Epochs < 1 || m.Epochs > maxCompactEpochs:
		return fmt.Errorf("epochs %d must be in 1..%d", m.Epochs, maxCompactEpochs)
	case m.FixedBatch < 0 || m.MaxGPUs < 0:
		return errors.New("fixed_batch and max_gpus must not be negative")
	case !(m.Target >= minTarget) || m.Target > maxMeasure:
		return fmt.Errorf("target %v must be in [%v, %g] iterations at the initial batch size (a smaller one makes the fairness ρ infinite)", m.Target, minTarget, maxMeasure)
	}
	if m.LRScaler != "" && m.LRScaler != AdaScale {
		return fmt.Errorf("lr_scaler %q is not supported: progress is modelled with AdaScale's gain, so it must be %q or absent", m.LRScaler, AdaScale)
	}
	if err := validateThroughput(m.Throughput, m.Correction, m.MinLocal); err != nil {
		return err
	}
	if err := m.Noise.validate("noise"); err != nil {
		return err
	}
	if err := m.Steps.validate("steps"); err != nil {
		return err
	}
	for _, c := range m.Tuned {
		if c.Replicas < 1 || c.Batch < 1 || !(c.JCT > 0) || c.JCT > maxMeasure {
			return fmt.Errorf("tuned configuration %+v is not valid", c)
		}
	}
	return nil
}

// validateThroughput checks a throughput model and its correction surface
// for a per-GPU batch range starting at minLocal.
func validateThroughput(p CompactThroughput, c CompactCorrection, minLocal int) error {
	finite := func(what string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s is not finite", what)
		}
		return nil
	}
	for i, v := range []float64{p.AlphaC, p.BetaC, p.AlphaR, p.BetaR, p.AlphaN, p.BetaN} {
		if !(v >= 0 && v <= maxParam) {
			return fmt.Errorf("throughput.%s %v must be in [0, %g]", throughputKeys[i], v, maxParam)
		}
	}
	if !(p.Gamma >= models.GammaMin && p.Gamma <= models.GammaMax) {
		return fmt.Errorf("throughput.gamma %v must be in [%v, %v]", p.Gamma, models.GammaMin, models.GammaMax)
	}
	if !(p.AlphaC+p.BetaC*float64(minLocal) > 0) {
		return errors.New("throughput predicts a zero compute time")
	}
	if len(c.Nodes) > 0 || len(c.GPUsPerNode) > 0 || len(c.LogFactor) > 0 {
		if err := increasing("correction nodes", c.Nodes); err != nil {
			return err
		}
		if err := increasing("correction gpus_per_node", c.GPUsPerNode); err != nil {
			return err
		}
		if len(c.LogFactor) != len(c.Nodes) {
			return fmt.Errorf("correction has %d rows, want %d", len(c.LogFactor), len(c.Nodes))
		}
		for _, row := range c.LogFactor {
			if len(row) != len(c.GPUsPerNode) {
				return fmt.Errorf("correction row has %d values, want %d", len(row), len(c.GPUsPerNode))
			}
			for _, v := range row {
				if err := finite("correction", v); err != nil || math.Abs(v) > 10 {
					return fmt.Errorf("correction log factor %v must be finite and within ±10", v)
				}
			}
		}
	}
	return nil
}

// validate checks a ratio curve.
func (nz *CompactNoise) validate(what string) error {
	if err := increasing(what+" epochs", nz.Epochs); err != nil {
		return err
	}
	if len(nz.LogRatio) != len(nz.Epochs) {
		return fmt.Errorf("%s has %d log ratios for %d epochs", what, len(nz.LogRatio), len(nz.Epochs))
	}
	for _, v := range nz.LogRatio {
		if !(math.Abs(v) <= maxLogRatioAbs) {
			return fmt.Errorf("%s log ratio %v must be within ±%g", what, v, maxLogRatioAbs)
		}
	}
	if !(math.Abs(nz.BatchExponent) <= maxBatchExponent) {
		return fmt.Errorf("%s batch exponent %v must be within ±%g", what, nz.BatchExponent, maxBatchExponent)
	}
	return nil
}

// increasing checks a non-empty, strictly increasing list of finite knots.
func increasing(what string, xs []float64) error {
	if len(xs) == 0 {
		return fmt.Errorf("%s: no knots", what)
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: knot %v is not finite", what, x)
		}
		if i > 0 && !(x > xs[i-1]) {
			return fmt.Errorf("%s: knots must increase (%v after %v)", what, x, xs[i-1])
		}
	}
	return nil
}

// Encode writes the file as indented JSON, with lists of numbers on one
// line.
func (f *CompactFile) Encode(w io.Writer) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(inlineNumberLists(data), '\n'))
	return err
}

// inlineNumberLists puts every JSON array that holds only numbers on one
// line.
func inlineNumberLists(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '"' { // copy strings verbatim
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, data[i:min(j+1, len(data))]...)
			i = j
			continue
		}
		if c != '[' {
			out = append(out, c)
			continue
		}
		end := bytes.IndexByte(data[i:], ']')
		inner := data[i+1 : i+max(end, 1)]
		if end < 0 || bytes.ContainsAny(inner, "[{\"") {
			out = append(out, c)
			continue
		}
		out = append(out, '[')
		for k, f := range bytes.Fields(bytes.ReplaceAll(inner, []byte(","), []byte(" "))) {
			if k > 0 {
				out = append(out, ", "...)
			}
			out = append(out, f...)
		}
		out = append(out, ']')
		i += end
	}
	return out
}

// WriteFile writes the file atomically to path.
func (f *CompactFile) WriteFile(path string) error {
	return atomicfile.Write(path, f.Encode)
}

// LoadCompact reads a compact profile file (as written by `polluxsim
// profiles derive`) as a Set.
func LoadCompact(path string) (*Set, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	f, err := ParseCompact(path, data)
	if err != nil {
		return nil, err
	}
	set := f.Set(path)
	set.Digest = digest.Parts(data)
	return set, nil
}
