package faults

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/internal/kv"
)

// Day is a day in seconds: rates are given per node-day.
const Day = 86400.0

// Model is a fault model: what fails, how often, for how long, and how
// jobs checkpoint. The zero Model has no faults.
type Model struct {
	// Preset is the preset the model started from ("" for none).
	Preset string
	// Rate is the node failure rate, failures per node-day.
	Rate float64
	// RateByType overrides Rate for the nodes of a GPU type.
	RateByType map[string]float64
	// Repair is the time a failed node (or domain) stays down.
	Repair Dist
	// DomainSize groups nodes into failure domains of this many
	// consecutive nodes (node n is in domain n/DomainSize); DomainRate is
	// a domain's failure rate, failures per domain-day, each taking every
	// node of the domain down together. 0: no domains.
	DomainSize int
	DomainRate float64
	// JobFailRate is the rate of failures of a job's own (user errors,
	// the traces' FAILED states), independent of the hardware: failures
	// per day of the job's running time.
	JobFailRate float64
	// File is a fault log replayed (ReadFile), Events its rows and
	// Digest its content's (16 hex digits of the SHA-256 of its bytes),
	// part of a run's identity.
	File   string
	Events []Event
	Digest string
	// content is the fault log's bytes as read (Content).
	content []byte
	// Checkpoint is how jobs checkpoint.
	Checkpoint Checkpoint
	// Replan calls the policy at once when a failure interrupts a job, in
	// a round of its own, rather than at the next scheduling round.
	Replan bool
	// Spares holds the cluster's last Spares nodes back from scheduling
	// as hot standbys: a node that fails is replaced by a spare that is up
	// (docs/failures.md states the rules).
	Spares int
}

// Checkpoint is a job's checkpointing: the interval between checkpoints
// (fixed, or Young's or Daly's optimum from the cost and the job's failure
// rate on the nodes it holds) and the time one checkpoint costs.
type Checkpoint struct {
	// Mode is "fixed", "young", "daly" or "none" (no checkpoints: a
	// failure loses all the work since the job's last restart).
	Mode string
	// Interval is the fixed interval in seconds of work (Mode fixed).
	Interval float64
	// Cost is the time in seconds one checkpoint takes.
	Cost float64
}

// Dist is a distribution of durations in seconds: "fixed" (always Mean),
// "exp" (exponential of mean Mean) or "lognormal" (mean Mean, log standard
// deviation Sigma).
type Dist struct {
	Kind  string
	Mean  float64
	Sigma float64
}

// String writes d as Parse reads it.
func (d Dist) String() string {
	if d.Kind == "lognormal" {
		return fmt.Sprintf("lognormal:%g:%g", d.Mean, d.Sigma)
	}
	return fmt.Sprintf("%s:%g", d.Kind, d.Mean)
}

// Presets are the named models, each from a published figure (see
// docs/failures.md for the arithmetic). "none" is no model.
func Presets() []string { return []string{"llama3", "none", "rsc1"} }

// DefaultRepair is the repair time of the presets: neither source reports
// one; four hours is our assumption (docs/failures.md).
var DefaultRepair = Dist{Kind: "exp", Mean: 4 * 3600}

// DefaultCheckpoint is the presets' checkpointing: Young's interval for a
// checkpoint that costs a minute.
var DefaultCheckpoint = Checkpoint{Mode: "young", Cost: 60}

// preset returns the named preset.
func preset(name string) (Model, bool) {
	switch name {
	case "llama3":
		// Llama 3 (Meta 2024, §3.3.4): 419 unexpected interruptions in 54
		// days on 2,048 nodes of 8 H100s.
		return Model{Preset: name, Rate: 419.0 / (54 * 2048), Repair: DefaultRepair, Checkpoint: DefaultCheckpoint}, true
	case "rsc1":
		// Kokolis et al. (HPCA 2025): RSC-1's 6.50 failures per 1,000
		// node-days (A100 nodes of 8).
		return Model{Preset: name, Rate: 6.50 / 1000, Repair: DefaultRepair, Checkpoint: DefaultCheckpoint}, true
	}
	return Model{}, false
}

// Parse reads a --failures value: "none" (or "") for no faults (nil), a
// preset name, the path of a fault log (a value naming an existing file or
// ending in .csv), or a comma-separated list of key=value settings, the
// first item of which may be a preset or a path the others refine:
//
//	rate=R          node failures per node-day
//	rate.TYPE=R     the rate of the nodes of GPU type TYPE
//	repair=D        repair time: fixed:S, exp:S or lognormal:S:SIGMA (S mean seconds)
//	domain=K:R      failure domains of K consecutive nodes, R failures per domain-day
//	job_fail=R      failures of a job's own (not the hardware's), per day of its running
//	file=PATH       replay the fault log PATH (see ReadFile)
//	ckpt=I          checkpoint interval: seconds, young, daly or none
//	ckpt_cost=S     time one checkpoint takes, seconds
//	replan=now      call the policy at once after a failure (default: round)
//	spares=K        hold K nodes back as hot standbys (default 0)
//
// A model checks its values (Check) before it is returned.
func Parse(s string) (*Model, error) { return ParseIn(s, nil) }

// ParseIn is Parse with the fault logs s names read from files, by
// slash-separated paths relative to it (fs.ValidPath: inside it), rather
// than from the operating system's files (files nil): the fault logs an
// experiment spec carries beside it.
func ParseIn(s string, files fs.FS) (*Model, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	items := strings.Split(s, ",")
	m := Model{Repair: DefaultRepair, Checkpoint: DefaultCheckpoint}
	first := strings.TrimSpace(items[0])
	if !strings.Contains(first, "=") {
		items = items[1:]
		if p, ok := preset(first); ok {
			m = p
		} else if isFile(first, files) {
			if err := m.load(first, files); err != nil {
				return nil, err
			}
		} else {
			return nil, fmt.Errorf("--failures: %q is neither a preset (%s), a fault file nor key=value", first, strings.Join(Presets(), ", "))
		}
	}
	pairs, err := kv.List(strings.Join(items, ","), true)
	if err != nil {
		return nil, fmt.Errorf("--failures: %w", err)
	}
	for _, p := range pairs {
		if err := m.set(p.Key, p.Value, files); err != nil {
			return nil, fmt.Errorf("--failures %s=%s: %w", p.Key, p.Value, err)
		}
	}
	if m.Rate == 0 && m.DomainRate == 0 && m.JobFailRate == 0 && m.Checkpoint.Mode != "fixed" && m.Checkpoint.Mode != "none" && len(m.Events) > 0 && m.Preset == "" {
		// A replay alone has no rate to derive an interval from.
		m.Checkpoint = Checkpoint{Mode: "fixed", Interval: 1800, Cost: m.Checkpoint.Cost}
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return &m, nil
}

// isFile reports whether s names a fault log rather than a preset (in
// files when not nil).
func isFile(s string, files fs.FS) bool {
	if strings.HasSuffix(strings.ToLower(s), ".csv") {
		return true
	}
	var st fs.FileInfo
	var err error
	if files != nil {
		st, err = fs.Stat(files, s)
	} else {
		st, err = os.Stat(s)
	}
	return err == nil && st.Mode().IsRegular()
}

// load reads the fault log path (in files when not nil) into m.
func (m *Model) load(path string, files fs.FS) error {
	var data []byte
	var err error
	switch {
	case files == nil:
		data, err = inputfile.ReadFile(path)
	case !fs.ValidPath(path):
		err = fmt.Errorf("%s: a spec's fault log is a relative path inside the spec's folder, with / between names", path)
	default:
		data, err = inputfile.ReadFS(files, path)
	}
	if err != nil {
		return fmt.Errorf("fault file: %w", err)
	}
	ev, err := Read(path, bytes.NewReader(data))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	m.File, m.Events, m.Digest, m.content = path, ev, hex.EncodeToString(sum[:8]), data
	return nil
}

// Content is the replayed fault log's bytes as they were read, those
// Events and Digest come from (nil without a fault log): a copy of the
// log stored beside a sweep's results is this, not the file read again.
func (m *Model) Content() []byte { return m.content }

// set applies one key=value setting.
func (m *Model) set(k, v string, files fs.FS) error {
	switch {
	case k == "rate":
		r, err := number(v)
		m.Rate = r
		return err
	case strings.HasPrefix(k, "rate."):
		r, err := number(v)
		if err != nil {
			return err
		}
		if m.RateByType == nil {
			m.RateByType = map[string]float64{}
		}
		m.RateByType[strings.ToLower(strings.TrimPrefix(k, "rate."))] = r
		return nil
	case k == "repair":
		d, err := ParseDist(v)
		m.Repair = d
		return err
	case k == "domain":
		a, b, ok := strings.Cut(v, ":")
		size, err := strconv.Atoi(a)
		if !ok || err != nil || size < 1 {
			return errors.New("want K:RATE, K a positive node count, RATE failures per domain-day")
		}
		r, err := number(b)
		m.DomainSize, m.DomainRate = size, r
		return err
	case k == "job_fail":
		r, err := number(v)
		m.JobFailRate = r
		return err
	case k == "file":
		return m.load(v, files)
	case k == "ckpt":
		switch v {
		case "young", "daly", "none":
			m.Checkpoint.Mode, m.Checkpoint.Interval = v, 0
			return nil
		}
		s, err := number(v)
		if err != nil || s <= 0 {
			return errors.New("want a positive number of seconds, young, daly or none")
		}
		m.Checkpoint.Mode, m.Checkpoint.Interval = "fixed", s
		return nil
	case k == "ckpt_cost":
		c, err := number(v)
		m.Checkpoint.Cost = c
		return err
	case k == "replan":
		switch v {
		case "now", "round":
			m.Replan = v == "now"
			return nil
		}
		return errors.New("want now (call the policy at once after a failure) or round (at the next scheduling round)")
	case k == "spares":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > MaxSpares {
			return fmt.Errorf("want a node count in [0, %d]", MaxSpares)
		}
		m.Spares = n
		return nil
	}
	return fmt.Errorf("unknown setting %q (rate, rate.TYPE, repair, domain, job_fail, file, ckpt, ckpt_cost, replan, spares)", k)
}

// number reads a finite non-negative number.
func number(s string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(x >= 0) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("want a finite non-negative number, got %q", s)
	}
	return x, nil
}

// ParseDist reads a duration distribution: fixed:S, exp:S or
// lognormal:S:SIGMA (S the mean in seconds).
func ParseDist(s string) (Dist, error) {
	parts := strings.Split(s, ":")
	bad := fmt.Errorf("want fixed:S, exp:S or lognormal:S:SIGMA (S the mean in seconds), got %q", s)
	if len(parts) < 2 {
		return Dist{}, bad
	}
	mean, err := number(parts[1])
	if err != nil {
		return Dist{}, bad
	}
	d := Dist{Kind: parts[0], Mean: mean}
	switch {
	case (d.Kind == "fixed" || d.Kind == "exp") && len(parts) == 2:
	case d.Kind == "lognormal" && len(parts) == 3:
		if d.Sigma, err = number(parts[2]); err != nil {
			return Dist{}, bad
		}
	default:
		return Dist{}, bad
	}
	return d, nil
}

// MaxSpares bounds the spare nodes of a model (the engine also refuses
// spares that leave no node of a pool in service).
const MaxSpares = 1 << 20

// MaxRate bounds a failure rate (per node-day or domain-day): a node that
// fails more than once a minute is not a cluster anyone runs.
const MaxRate = 1440

// Check validates the model's values, naming the setting at fault.
func (m *Model) Check() error {
	rates := map[string]float64{"rate": m.Rate, "domain rate": m.DomainRate, "job_fail": m.JobFailRate}
	for t, r := range m.RateByType {
		rates["rate."+t] = r
	}
	names := make([]string, 0, len(rates))
	for k := range rates {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if r := rates[k]; !(r >= 0) || r > MaxRate {
			return fmt.Errorf("--failures: %s must be in [0, %d] failures per day, got %v", k, MaxRate, r)
		}
	}
	if m.DomainRate > 0 && m.DomainSize < 1 {
		return errors.New("--failures: a domain rate needs a domain size (domain=K:RATE)")
	}
	switch m.Repair.Kind {
	case "fixed", "exp", "lognormal":
	default:
		return fmt.Errorf("--failures: unknown repair distribution %q (fixed, exp, lognormal)", m.Repair.Kind)
	}
	if !(m.Repair.Mean > 0) || m.Repair.Mean > 1e8 || !(m.Repair.Sigma >= 0) || m.Repair.Sigma > 10 {
		return fmt.Errorf("--failures: repair time must have a mean in (0, 1e8] s and sigma in [0, 10], got %s", m.Repair)
	}
	c := m.Checkpoint
	switch c.Mode {
	case "fixed":
		if !(c.Interval > 0) || math.IsInf(c.Interval, 0) {
			return fmt.Errorf("--failures: checkpoint interval must be positive, got %v s", c.Interval)
		}
	case "young", "daly":
		if m.Rate == 0 && m.DomainRate == 0 && m.JobFailRate == 0 && len(m.RateByType) == 0 {
			return fmt.Errorf("--failures: ckpt=%s needs a failure rate to derive the interval from (give ckpt=SECONDS for a replay)", c.Mode)
		}
		if !(c.Cost > 0) {
			return fmt.Errorf("--failures: ckpt=%s needs a positive checkpoint cost (ckpt_cost=SECONDS)", c.Mode)
		}
	case "none":
	default:
		return fmt.Errorf("--failures: unknown checkpoint mode %q", c.Mode)
	}
	if !(c.Cost >= 0) || c.Cost > 1e6 {
		return fmt.Errorf("--failures: checkpoint cost must be in [0, 1e6] s, got %v", c.Cost)
	}
	return nil
}

// NodeRate is the failure rate per second of a node of GPU type t.
func (m *Model) NodeRate(t string) float64 {
	if r, ok := m.RateByType[t]; ok {
		return r / Day
	}
	return m.Rate / Day
}

// JobRate is the rate per second at which a job holding the given nodes
// (their numbers and GPU types) is interrupted: its nodes' rates, those
// of the failure domains it touches, and its own (JobFailRate).
func (m *Model) JobRate(nodes []int, types []string) float64 {
	r := m.JobFailRate / Day
	for i := range nodes {
		r += m.NodeRate(types[i])
	}
	if m.DomainSize > 0 && m.DomainRate > 0 {
		seen := map[int]bool{}
		for _, n := range nodes {
			seen[n/m.DomainSize] = true
		}
		r += float64(len(seen)) * m.DomainRate / Day
	}
	return r
}

// String writes the model as Parse reads it.
func (m *Model) String() string {
	var b []string
	if m.Preset != "" {
		b = append(b, m.Preset)
	}
	b = append(b, fmt.Sprintf("rate=%g", m.Rate))
	types := make([]string, 0, len(m.RateByType))
	for t := range m.RateByType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		b = append(b, fmt.Sprintf("rate.%s=%g", t, m.RateByType[t]))
	}
	b = append(b, "repair="+m.Repair.String())
	if m.DomainSize > 0 {
		b = append(b, fmt.Sprintf("domain=%d:%g", m.DomainSize, m.DomainRate))
	}
	if m.JobFailRate > 0 {
		b = append(b, fmt.Sprintf("job_fail=%g", m.JobFailRate))
	}
	if m.File != "" {
		b = append(b, "file="+m.File)
	}
	switch m.Checkpoint.Mode {
	case "fixed":
		b = append(b, fmt.Sprintf("ckpt=%g", m.Checkpoint.Interval))
	default:
		b = append(b, "ckpt="+m.Checkpoint.Mode)
	}
	b = append(b, fmt.Sprintf("ckpt_cost=%g", m.Checkpoint.Cost))
	if m.Replan {
		b = append(b, "replan=now")
	}
	if m.Spares > 0 {
		b = append(b, fmt.Sprintf("spares=%d", m.Spares))
	}
	return strings.Join(b, ",")
}
