package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/internal/strictjson"
)

// Baseline holds the expected results of an experiment
// (experiments/baselines/NAME.json): per cell and metric the expected mean
// over workloads and a relative tolerance. `polluxsim regress` fails when a
// cell drifts beyond it.
type Baseline struct {
	Experiment  string `json:"experiment"`
	Version     int    `json:"version"`
	Description string `json:"description,omitempty"`
	// ProfilesID, when set, is the profiles the numbers were made with
	// ("embedded" or a digest of the data files); results made with other
	// profiles fail the check.
	ProfilesID string `json:"profiles_id,omitempty"`
	// Tolerance is the default relative tolerance of the cells.
	Tolerance float64        `json:"tolerance"`
	Cells     []BaselineCell `json:"cells"`
}

// BaselineCell is one expected number.
type BaselineCell struct {
	Cell string `json:"cell"`
	// Metric defaults to avg_jct_s.
	Metric   string  `json:"metric,omitempty"`
	Expected float64 `json:"expected"`
	// Tolerance is relative, |got/expected − 1| ≤ Tolerance (absolute when
	// Expected is 0); 0 means the baseline's.
	Tolerance float64 `json:"tolerance,omitempty"`
}

func (c BaselineCell) metric() string {
	if c.Metric == "" {
		return "avg_jct_s"
	}
	return c.Metric
}

// ReadBaseline reads a baseline file (unknown keys are errors) whose
// metrics are those of ms (the zero Metrics: the built-in ones).
func ReadBaseline(ms outputs.Metrics, path string) (*Baseline, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var b Baseline
	if err := strictjson.Decode(data, &b); err != nil {
		// Also exact, unique keys and nothing after the object (trailing
		// data and "Tolerance" passed).
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	if b.Experiment == "" || len(b.Cells) == 0 {
		return nil, fmt.Errorf("baseline %s: needs an experiment and cells", path)
	}
	for _, c := range b.Cells {
		if !results.KnownMetric(ms, c.metric()) {
			return nil, fmt.Errorf("baseline %s: cell %s: unknown metric %q", path, c.Cell, c.Metric)
		}
		if !(c.Tolerance >= 0) || !(b.Tolerance >= 0) {
			// A negative tolerance fell back to the baseline's (±0.5 %).
			return nil, fmt.Errorf("baseline %s: cell %s: tolerance %v must not be negative (0 or absent: the baseline's %v)", path, c.Cell, c.Tolerance, b.Tolerance)
		}
		if tol := b.tolerance(c); !(tol >= 0) || math.IsInf(tol, 0) || math.IsNaN(c.Expected) || math.IsInf(c.Expected, 0) {
			return nil, fmt.Errorf("baseline %s: cell %s: expected %v and tolerance %v must be finite and the tolerance non-negative", path, c.Cell, c.Expected, tol)
		}
	}
	return &b, nil
}

func (b *Baseline) tolerance(c BaselineCell) float64 {
	if c.Tolerance > 0 {
		return c.Tolerance
	}
	return b.Tolerance
}

// Check is the outcome of one baseline number.
type Check struct {
	Cell      string
	Metric    string
	Expected  float64
	Got       float64
	Drift     float64 // got/expected − 1 (got − expected when expected is 0)
	Tolerance float64
	Missing   bool // the results have no run of the cell
	OK        bool
	// Worse says that the drift goes the metric's bad way (a longer JCT,
	// a lower utilisation: outputs.Metric.HigherIsBetter), passed or not.
	Worse bool
}

// Regress compares a sweep's summary with a baseline, cell by cell, with
// the declarations of ms: each check compares
// the metric's aggregate (Metric.Aggregate; the mean unless declared) and
// says whether its drift is for the worse (Metric.HigherIsBetter). It returns every check and an error when the
// summary is of another experiment or profiles.
func Regress(ms outputs.Metrics, b *Baseline, sum *SweepSummary, profilesIDs []string) ([]Check, error) {
	if sum.Experiment != b.Experiment || sum.Version != b.Version {
		return nil, fmt.Errorf("baseline is for experiment %s version %d, the results are of %s version %d",
			b.Experiment, b.Version, sum.Experiment, sum.Version)
	}
	if b.ProfilesID != "" {
		for _, id := range profilesIDs {
			if id != b.ProfilesID {
				return nil, fmt.Errorf("baseline was made with profiles %s, the results with %s", b.ProfilesID, id)
			}
		}
	}
	var out []Check
	for _, bc := range b.Cells {
		c := Check{Cell: bc.Cell, Metric: bc.metric(), Expected: bc.Expected, Tolerance: b.tolerance(bc)}
		st, ok := results.Stat{}, false
		if cs := sum.Cell(bc.Cell); cs != nil {
			st, ok = cs.Metrics[c.Metric]
		}
		if !ok || st.N == 0 {
			c.Missing = true
			out = append(out, c)
			continue
		}
		c.Got = st.Central()
		if c.Expected != 0 {
			c.Drift = c.Got/c.Expected - 1
		} else {
			c.Drift = c.Got
		}
		c.OK = math.Abs(c.Drift) <= c.Tolerance
		if m, ok := results.Declaration(ms, c.Metric); ok {
			c.Worse = (c.Drift < 0) == m.HigherIsBetter && c.Drift != 0
		}
		out = append(out, c)
	}
	return out, nil
}

// Failed lists the checks that failed as "cell metric: reason".
func Failed(checks []Check) []string {
	var out []string
	for _, c := range checks {
		switch {
		case c.Missing:
			out = append(out, fmt.Sprintf("%s %s: no results", c.Cell, c.Metric))
		case !c.OK && c.Expected == 0:
			// The drift is absolute here: "+85834.56%" of nothing said nothing.
			out = append(out, fmt.Sprintf("%s %s: %.6g, expected 0 (%+.6g absolute, tolerance ±%.6g): %s",
				c.Cell, c.Metric, c.Got, c.Drift, c.Tolerance, c.way()))
		case !c.OK:
			out = append(out, fmt.Sprintf("%s %s: %.6g, expected %.6g (%+.2f%%, tolerance ±%.2f%%): %s",
				c.Cell, c.Metric, c.Got, c.Expected, 100*c.Drift, 100*c.Tolerance, c.way()))
		}
	}
	return out
}

// way says which way a check drifted.
func (c Check) way() string {
	if c.Worse {
		return "worse"
	}
	return "better"
}

// UpdateBaseline sets every expected number of b to the summary's mean
// (adding an avg_jct_s entry for every cell when b has none) and returns
// it.
func UpdateBaseline(b *Baseline, sum *SweepSummary, profilesID string) (*Baseline, error) {
	if b == nil {
		b = &Baseline{Experiment: sum.Experiment, Version: sum.Version, Tolerance: 0.02,
			Description: "expected mean over workloads of " + sum.Experiment}
		for _, c := range sum.Cells {
			b.Cells = append(b.Cells, BaselineCell{Cell: c.Cell})
		}
	}
	if b.Experiment != sum.Experiment {
		return nil, fmt.Errorf("baseline is for experiment %s, the results are of %s", b.Experiment, sum.Experiment)
	}
	b.Version, b.ProfilesID = sum.Version, profilesID
	var missing []string
	for i := range b.Cells {
		bc := &b.Cells[i]
		cs := sum.Cell(bc.Cell)
		if cs == nil {
			missing = append(missing, bc.Cell)
			continue
		}
		st, ok := cs.Metrics[bc.metric()]
		if !ok || st.N == 0 {
			missing = append(missing, bc.Cell)
			continue
		}
		bc.Expected = roundSig(st.Central(), 9)
	}
	if len(missing) > 0 {
		return nil, errors.New("no results for cells " + strings.Join(missing, ", "))
	}
	return b, nil
}

// WriteBaseline writes b as indented JSON with one line per cell.
func WriteBaseline(path string, b *Baseline) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	data := cellObject.ReplaceAllFunc(buf.Bytes(), func(m []byte) []byte {
		m = bytes.TrimSpace(results.CollapseSpace(m, []byte(" ")))
		return bytes.ReplaceAll(bytes.ReplaceAll(m, []byte("{ "), []byte("{")), []byte(" }"), []byte("}"))
	})
	return atomicfile.WriteBytes(path, data)
}

// cellObject matches one multi-line object of a baseline's cell list.
var cellObject = regexp.MustCompile(`\{\n\s*"cell"[^{}]*?\n\s*\}`)

// roundSig rounds x to n significant digits.
func roundSig(x float64, n int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow10(n - 1 - int(math.Floor(math.Log10(math.Abs(x)))))
	return math.Round(x*p) / p
}
