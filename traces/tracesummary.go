package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The paper's load, by GPU time: its workloads are 160 jobs per 8 hours
// on 64 GPUs, sampled from the Philly jobs DefaultPhillyFilter keeps,
// whose mean GPU time is PaperPoolGPUSeconds / PaperPoolJobs (8.246
// GPU-hours). TestPaperLoadConstants recomputes both from the
// reference's traces/philly.csv.
const (
	PaperJobs           = 160
	PaperGPUs           = 64
	PaperWindowHours    = 8
	PaperPoolJobs       = 31293
	PaperPoolGPUSeconds = 928948900.0
)

// PaperGPUHoursPerGPUHour is the paper's load per GPU by GPU time: the
// Philly GPU-hours its 160 jobs bring per GPU per hour of the window
// (2.577: the Philly jobs' own durations would keep 2.6 times the 64 GPUs
// busy; Pollux's applications run them in far less).
func PaperGPUHoursPerGPUHour() float64 {
	return PaperJobs * (PaperPoolGPUSeconds / PaperPoolJobs / 3600) / (PaperGPUs * PaperWindowHours)
}

// PaperJobsPerGPUHour is the paper's load per GPU by job count: 160 jobs
// per 64 GPUs per 8 hours.
func PaperJobsPerGPUHour() float64 { return float64(PaperJobs) / (PaperGPUs * PaperWindowHours) }

// TraceSummary is what `trace summarize` prints of a trace: its size, its
// load, and the cluster at which it matches the paper's load per GPU.
type TraceSummary struct {
	Trace  string `json:"trace"`
	Format string `json:"format"`
	// Start is the calendar time of submission 0, for calendar traces.
	Start string `json:"start,omitempty"`
	Jobs  int    `json:"jobs"`
	// SpanSeconds is from the first to the last submission.
	SpanSeconds float64 `json:"span_s"`
	SpanDays    float64 `json:"span_days"`
	MaxGPUs     int     `json:"max_gpus"`
	// GPUs is the GPU-count histogram, [gpus, jobs] bars.
	GPUs []GPUCount `json:"gpus"`
	// GPUHours is the sum of duration × GPUs.
	GPUHours float64 `json:"gpu_hours"`
	// AvgGPUsBusy is GPUHours over the span: the GPUs the trace keeps busy
	// on average if every job ran on arrival (0 for a span of 0).
	AvgGPUsBusy float64 `json:"avg_gpus_busy"`
	// MedianDurationS is the median run time.
	MedianDurationS float64 `json:"median_duration_s"`
	// States counts jobs by final status ("" when the trace has none).
	States map[string]int `json:"states,omitempty"`
	// ClusterGPUs is the trace's own cluster size where published.
	ClusterGPUs int `json:"cluster_gpus,omitempty"`
	// PaperEquivalentGPUs is the cluster size at which the trace's GPU
	// time per GPU per hour equals the paper's (AvgGPUsBusy /
	// PaperGPUHoursPerGPUHour); PaperEquivalentGPUsByJobs the same by job
	// count.
	PaperEquivalentGPUs       float64 `json:"paper_equivalent_gpus"`
	PaperEquivalentGPUsByJobs float64 `json:"paper_equivalent_gpus_by_jobs"`
	// SuggestedGPUs is PaperEquivalentGPUs rounded up to whole nodes of
	// GPUsPerNode GPUs, and at least the largest job (so that every job
	// fits); SuggestedNodes = SuggestedGPUs / GPUsPerNode.
	GPUsPerNode    int `json:"gpus_per_node"`
	SuggestedGPUs  int `json:"suggested_gpus"`
	SuggestedNodes int `json:"suggested_nodes"`
	// Report is the reader's: rows read, kept, left out.
	Report TraceReport `json:"report"`
}

// SummarizeTrace computes a trace's summary; gpusPerNode (0 means 4, the
// paper's nodes) rounds the suggested cluster to whole nodes.
func SummarizeTrace(t *TraceTable, gpusPerNode int) (*TraceSummary, error) {
	if t == nil || len(t.Jobs) == 0 {
		return nil, errors.New("summarize: empty trace")
	}
	if gpusPerNode == 0 {
		gpusPerNode = 4
	}
	if gpusPerNode < 1 || gpusPerNode > 1<<16 {
		return nil, fmt.Errorf("summarize: %d GPUs per node out of range", gpusPerNode)
	}
	s := &TraceSummary{Trace: t.Name, Format: t.Format, Jobs: len(t.Jobs), ClusterGPUs: t.ClusterGPUs,
		GPUsPerNode: gpusPerNode, Report: t.Report}
	if !t.Start.IsZero() {
		s.Start = t.Start.Format(PhillyTimeLayout)
	}
	first, last := math.Inf(1), math.Inf(-1)
	gpus := map[int]int{}
	durations := make([]float64, len(t.Jobs))
	gpuSeconds := 0.0
	for i := range t.Jobs {
		j := &t.Jobs[i]
		first, last = math.Min(first, j.Submit), math.Max(last, j.Submit)
		gpus[j.GPUs]++
		s.MaxGPUs = max(s.MaxGPUs, j.GPUs)
		gpuSeconds += j.GPUTime()
		durations[i] = j.Duration
		if j.Status != "" {
			if s.States == nil {
				s.States = map[string]int{}
			}
			s.States[j.Status]++
		}
	}
	s.GPUs = histogram(gpus)
	s.SpanSeconds = last - first
	s.SpanDays = s.SpanSeconds / 86400
	s.GPUHours = gpuSeconds / 3600
	sort.Float64s(durations)
	n := len(durations)
	s.MedianDurationS = (durations[(n-1)/2] + durations[n/2]) / 2
	if s.SpanSeconds > 0 {
		s.AvgGPUsBusy = gpuSeconds / s.SpanSeconds
		s.PaperEquivalentGPUs = s.AvgGPUsBusy / PaperGPUHoursPerGPUHour()
		s.PaperEquivalentGPUsByJobs = float64(s.Jobs) / (s.SpanSeconds / 3600) / PaperJobsPerGPUHour()
	}
	nodes := int(math.Ceil(s.PaperEquivalentGPUs / float64(gpusPerNode)))
	nodes = max(nodes, (s.MaxGPUs+gpusPerNode-1)/gpusPerNode, 1)
	s.SuggestedNodes, s.SuggestedGPUs = nodes, nodes*gpusPerNode
	return s, nil
}

// WriteJSON writes the summary as indented JSON.
func (s *TraceSummary) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// gpuBands are the GPU-count bands the text form groups jobs into.
var gpuBands = [][2]int{{1, 1}, {2, 2}, {3, 4}, {5, 8}, {9, 16}, {17, 32}, {33, 64}, {65, 128}, {129, 256}, {257, 512}, {513, 1024}, {1025, math.MaxInt}}

// WriteText writes the summary for people.
func (s *TraceSummary) WriteText(w io.Writer) error {
	var b strings.Builder
	row := func(k, format string, args ...any) { fmt.Fprintf(&b, "%-18s %s\n", k, fmt.Sprintf(format, args...)) }
	row("trace", "%s (%s)", s.Trace, s.Format)
	if s.Start != "" {
		row("start", "%s (time 0 = the earliest submission)", s.Start)
	}
	row("jobs", "%s (rows read %s, left out %s)", group(s.Jobs), group(s.Report.Rows), group(s.Report.Rows-s.Report.Kept))
	for _, k := range sortedCountKeys(s.Report.Dropped) {
		row("  left out", "%s: %s", k, group(s.Report.Dropped[k]))
	}
	if s.Report.Fractional > 0 {
		row("  fractional GPUs", "%s jobs rounded up to whole GPUs", group(s.Report.Fractional))
	}
	row("span", "%.1f days of submissions", s.SpanDays)
	var bands []string
	for _, band := range gpuBands {
		n := 0
		for _, c := range s.GPUs {
			if c.GPUs >= band[0] && c.GPUs <= band[1] {
				n += c.Jobs
			}
		}
		if n == 0 {
			continue
		}
		label := strconv.Itoa(band[0])
		if band[1] == math.MaxInt {
			label += "+"
		} else if band[1] != band[0] {
			label += "-" + strconv.Itoa(band[1])
		}
		bands = append(bands, fmt.Sprintf("%s: %s (%.1f%%)", label, group(n), 100*float64(n)/float64(s.Jobs)))
	}
	row("GPUs per job", "max %d; %s", s.MaxGPUs, strings.Join(bands, ", "))
	row("GPU-hours", "%s", group(int(math.Round(s.GPUHours))))
	row("median run time", "%.0f s", s.MedianDurationS)
	row("avg GPUs busy", "%.1f (GPU-hours / span: if every job ran on arrival)", s.AvgGPUsBusy)
	if len(s.States) > 0 {
		var parts []string
		for _, k := range sortedCountKeys(s.States) {
			parts = append(parts, fmt.Sprintf("%s %s", k, group(s.States[k])))
		}
		row("states", "%s", strings.Join(parts, ", "))
	}
	if s.ClusterGPUs > 0 {
		row("cluster", "%s GPUs (as the trace publishes)", group(s.ClusterGPUs))
	}
	row("paper load", "%.1f GPUs match the paper's load per GPU by GPU time (%d jobs of %.2f GPU-h per %d GPUs per %d h); %.1f by job count",
		s.PaperEquivalentGPUs, PaperJobs, PaperPoolGPUSeconds/PaperPoolJobs/3600, PaperGPUs, PaperWindowHours, s.PaperEquivalentGPUsByJobs)
	row("suggested cluster", "%d GPUs = %d nodes x %d (the paper-equivalent size in whole nodes, at least the largest job)",
		s.SuggestedGPUs, s.SuggestedNodes, s.GPUsPerNode)
	_, err := io.WriteString(w, b.String())
	return err
}

// sortedCountKeys lists a count map's keys, sorted.
func sortedCountKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// group writes an integer with thousands separators: 123,748.
func group(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
