package traces

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// SummaryFormat identifies the summary file format (Summary.Format).
const SummaryFormat = "polluxsim-philly-summary/1"

// SummaryAttribution is the provenance Summarize writes into a summary of
// the reference's philly.csv.
const SummaryAttribution = "Derived from traces/philly.csv of petuum/adaptdl (branch osdi21-artifact; " +
	"Apache-2.0), a reduced view of Microsoft's Philly trace (msr-fiddle/philly-traces, provided as is; " +
	"cite: M. Jeon et al., \"Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training " +
	"Workloads\", USENIX ATC 2019). Only aggregate counts are kept, no trace row."

// DefaultBucketSeconds is the arrival-histogram bucket Summarize uses
// unless told otherwise: 5 minutes.
const DefaultBucketSeconds = 300

//go:embed default/philly-summary.json
var defaultSummaryJSON string

// Summary is a compact distribution of the Philly jobs a workload is
// sampled from, enough to generate workloads with the real trace's
// application mix, arrival times and GPU counts without the trace: per
// GPU-time class (the four that decide the application), the number of
// jobs the filter keeps, their arrivals per bucket of the window, their
// GPU counts, and the GPU counts of those that ran at most a day. It holds
// counts only, never trace rows. Make one with Summarize; the binary
// embeds one of the reference's philly.csv (DefaultSummary).
//
// Sampling a Summary draws (class, arrival bucket) cells without
// replacement in proportion to their counts, an arrival second uniformly
// within the bucket, and a GPU count from the class's histogram: arrival
// and GPU count are taken as independent within a class.
type Summary struct {
	Format       string       `json:"format"`
	Description  string       `json:"description"`
	Attribution  string       `json:"attribution"`
	SourceFile   string       `json:"source_file,omitempty"`   // base name of the table summarised
	SourceSHA256 string       `json:"source_sha256,omitempty"` // of that file
	Filter       PhillyFilter `json:"filter"`
	// Rows is the number of rows of the table; Kept of them pass Filter.
	Rows          int               `json:"rows"`
	Kept          int               `json:"kept"`
	BucketSeconds int               `json:"bucket_seconds"`
	Categories    []SummaryCategory `json:"categories"`

	origin string // where it was read from, for workload descriptions
}

// SummaryCategory is one GPU-time class of a Summary.
type SummaryCategory struct {
	// Name is the class: gpu_hours_lt_1, gpu_hours_1_to_10,
	// gpu_hours_10_to_100, gpu_hours_ge_100, in that order.
	Name string `json:"name"`
	// Jobs is the number of kept jobs of the class.
	Jobs int `json:"jobs"`
	// Arrivals[i] counts the jobs arriving in [i, i+1)·BucketSeconds.
	Arrivals []int `json:"arrivals"`
	// GPUs is the GPU-count histogram of the class.
	GPUs []GPUCount `json:"gpus"`
	// ShortGPUs is the GPU-count histogram of the class's jobs that ran at
	// most 24 hours.
	ShortGPUs []GPUCount `json:"gpus_short"`
}

// MarshalJSON writes a histogram bar as [gpus, jobs].
func (c GPUCount) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]int{c.GPUs, c.Jobs})
}

// UnmarshalJSON reads a histogram bar written as [gpus, jobs].
func (c *GPUCount) UnmarshalJSON(b []byte) error {
	var p []int
	if err := json.Unmarshal(b, &p); err != nil || len(p) != 2 {
		return fmt.Errorf("histogram bar %s: want [gpus, jobs]", b)
	}
	c.GPUs, c.Jobs = p[0], p[1]
	return nil
}

// Summarize computes the Summary of the table's jobs that f keeps (the
// zero filter means DefaultPhillyFilter), with arrivals counted per
// bucketSeconds (0 means DefaultBucketSeconds; it must divide the window).
func Summarize(t *PhillyTable, f PhillyFilter, bucketSeconds int) (*Summary, error) {
	if f == (PhillyFilter{}) {
		f = DefaultPhillyFilter()
	}
	if bucketSeconds == 0 {
		bucketSeconds = DefaultBucketSeconds
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	if bucketSeconds < 1 || f.window()%bucketSeconds != 0 {
		return nil, fmt.Errorf("summarize: bucket of %d s must divide the %d s window", bucketSeconds, f.window())
	}
	if t == nil || len(t.Jobs) == 0 {
		return nil, errors.New("summarize: empty Philly table")
	}
	nb := f.window() / bucketSeconds
	s := &Summary{
		Format: SummaryFormat,
		Description: fmt.Sprintf("Philly jobs kept by the filter, by GPU-time class: job count, arrivals per %d s "+
			"bucket of the %d h window, GPU-count histogram [gpus, jobs], and that of the jobs that ran at most 24 h.",
			bucketSeconds, f.WindowHours),
		Attribution:   SummaryAttribution,
		Filter:        f,
		Rows:          len(t.Jobs),
		BucketSeconds: bucketSeconds,
	}
	var gpus, short [numCategories]map[int]int
	s.Categories = make([]SummaryCategory, numCategories)
	for c := range s.Categories {
		s.Categories[c] = SummaryCategory{Name: category(c).name(), Arrivals: make([]int, nb)}
		gpus[c], short[c] = map[int]int{}, map[int]int{}
	}
	for i := range t.Jobs {
		j := &t.Jobs[i]
		at, ok := f.arrival(j)
		if !ok {
			continue
		}
		c := categoryOf(j.GPUTime)
		sc := &s.Categories[c]
		sc.Jobs++
		sc.Arrivals[at/bucketSeconds]++
		gpus[c][j.GPUs]++
		if j.Duration <= shortJob {
			short[c][j.GPUs]++
		}
		s.Kept++
	}
	if s.Kept == 0 {
		return nil, errors.New("summarize: the filter keeps no job of the table")
	}
	for c := range s.Categories {
		s.Categories[c].GPUs = histogram(gpus[c])
		s.Categories[c].ShortGPUs = histogram(short[c])
	}
	return s, nil
}

// DefaultSummary returns the summary embedded in the binary: that of the
// reference's traces/philly.csv under DefaultPhillyFilter (see
// traces/default/NOTICE.md for its provenance).
func DefaultSummary() (*Summary, error) {
	s, err := ParseSummary([]byte(defaultSummaryJSON), "embedded Philly summary")
	if err != nil {
		return nil, fmt.Errorf("embedded Philly summary is broken (a build problem): %w", err)
	}
	return s, nil
}

// ReadSummary reads a summary file written by WriteSummary.
func ReadSummary(path string) (*Summary, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := inputfile.ReadAll(f)
	if err != nil {
		return nil, &InputError{File: path, Err: err}
	}
	return ParseSummary(data, path)
}

// ParseSummary decodes and checks a summary; name is used in messages.
func ParseSummary(data []byte, name string) (*Summary, error) {
	s := &Summary{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, &InputError{File: name, Err: fmt.Errorf("not a Philly summary: %w", err)}
	}
	if err := s.validate(); err != nil {
		return nil, &InputError{File: name, Err: err}
	}
	s.origin = name
	return s, nil
}

// validate checks that the summary is consistent, so sampling it cannot
// go wrong.
func (s *Summary) validate() error {
	if s.Format != SummaryFormat {
		return fmt.Errorf("format %q, want %q", s.Format, SummaryFormat)
	}
	if err := s.Filter.validate(); err != nil {
		return err
	}
	if s.BucketSeconds < 1 || s.Filter.window()%s.BucketSeconds != 0 {
		return fmt.Errorf("bucket of %d s does not divide the %d s window", s.BucketSeconds, s.Filter.window())
	}
	if len(s.Categories) != int(numCategories) {
		return fmt.Errorf("%d GPU-time classes, want %d", len(s.Categories), numCategories)
	}
	nb, kept := s.Filter.window()/s.BucketSeconds, 0
	for c, sc := range s.Categories {
		if want := category(c).name(); sc.Name != want {
			return fmt.Errorf("class %d is %q, want %q", c+1, sc.Name, want)
		}
		if len(sc.Arrivals) != nb {
			return fmt.Errorf("class %s: %d arrival buckets, want %d", sc.Name, len(sc.Arrivals), nb)
		}
		sum := 0
		for _, n := range sc.Arrivals {
			if n < 0 || n > 1<<30 {
				return fmt.Errorf("class %s: arrival count %d out of range", sc.Name, n)
			}
			sum += n
		}
		if sum != sc.Jobs {
			return fmt.Errorf("class %s: arrivals add up to %d, not its %d jobs", sc.Name, sum, sc.Jobs)
		}
		for _, h := range []struct {
			name string
			bars []GPUCount
			want func(int) bool
		}{
			{"gpus", sc.GPUs, func(n int) bool { return n == sc.Jobs }},
			{"gpus_short", sc.ShortGPUs, func(n int) bool { return n <= sc.Jobs }},
		} {
			sum := 0
			for _, b := range h.bars {
				if b.GPUs < 1 || b.GPUs > maxCount || b.Jobs < 0 || b.Jobs > 1<<30 {
					return fmt.Errorf("class %s: %s bar [%d, %d] out of range", sc.Name, h.name, b.GPUs, b.Jobs)
				}
				sum += b.Jobs
			}
			if !h.want(sum) {
				return fmt.Errorf("class %s: %s histogram counts %d jobs, the class has %d", sc.Name, h.name, sum, sc.Jobs)
			}
		}
		kept += sc.Jobs
	}
	if kept != s.Kept || kept < 1 {
		return fmt.Errorf("classes hold %d jobs, kept is %d", kept, s.Kept)
	}
	return nil
}

// WriteSummary writes s to path atomically as indented JSON, number lists
// on one line.
func WriteSummary(path string, s *Summary) error {
	data, err := s.marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, data)
}

// numberList matches a JSON list of integers spread over lines, and
// pairList a list of such lists, once those are on one line.
var (
	numberList = regexp.MustCompile(`\[\s*-?\d+(?:\s*,\s*-?\d+)*\s*\]`)
	pairList   = regexp.MustCompile(`\[\s*\[[-\d, ]*\](?:\s*,\s*\[[-\d, ]*\])*\s*\]`)
)

// marshal writes the summary as indented JSON with every list of numbers
// (and of [gpus, jobs] pairs) on one line, so the file stays short and
// reviewable.
func (s *Summary) marshal() ([]byte, error) {
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("summary: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	squash := func(b []byte) []byte {
		var buf bytes.Buffer
		if json.Compact(&buf, b) != nil {
			return b
		}
		return bytes.ReplaceAll(buf.Bytes(), []byte(","), []byte(", "))
	}
	data = numberList.ReplaceAllFunc(data, squash)
	data = pairList.ReplaceAllFunc(data, squash)
	return append(data, '\n'), nil
}

// WriteTo writes the summary as WriteSummary does, to any writer.
func (s *Summary) WriteTo(w io.Writer) (int64, error) {
	data, err := s.marshal()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

func (s *Summary) population(f PhillyFilter) (population, error) {
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("Philly summary: %w", err)
	}
	if f != (PhillyFilter{}) && f != s.Filter {
		return nil, fmt.Errorf("the Philly summary was made with filter %+v; it cannot be sampled with %+v", s.Filter, f)
	}
	return &summaryPopulation{s: s}, nil
}

func (s *Summary) describe() string {
	if s.origin != "" {
		return s.origin
	}
	return "a Philly summary"
}

// summaryPopulation samples a Summary.
type summaryPopulation struct{ s *Summary }

func (p *summaryPopulation) size() int { return p.s.Kept }

func (p *summaryPopulation) sample(n int, r *rand.Rand) []draw {
	nb := len(p.s.Categories[0].Arrivals)
	left := make([]int, 0, int(numCategories)*nb) // cell = class*nb + bucket
	for _, sc := range p.s.Categories {
		left = append(left, sc.Arrivals...)
	}
	total := p.s.Kept
	out := make([]draw, n)
	for i := range out {
		x, cell := r.IntN(total), 0
		for x >= left[cell] {
			x -= left[cell]
			cell++
		}
		left[cell]--
		total--
		c := category(cell / nb)
		gpus, _ := drawGPUs(p.s.Categories[c].GPUs, r)
		out[i] = draw{
			arrival: (cell%nb)*p.s.BucketSeconds + r.IntN(p.s.BucketSeconds),
			cat:     c,
			gpus:    gpus,
		}
	}
	return out
}

func (p *summaryPopulation) shortGPUs(c category) []GPUCount { return p.s.Categories[c].ShortGPUs }
