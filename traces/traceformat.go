package traces

import (
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/internal/itp"
	reg "github.com/polluxsim/polluxsim/internal/registry"
)

// TraceFormat is a registered trace format: how a trace named
// "FORMAT:ARG" (itp:cluster02, helios:cluster_log.csv) is read.
type TraceFormat struct {
	// Name is the part before the colon: lower-case letters, digits, '-'.
	Name string
	// Usage shows the argument, e.g. "itp:cluster01 … itp:cluster10".
	Usage string
	// Doc is a one-line description, with where the data comes from.
	Doc string
	// Read reads the trace ARG names (a file, a folder, a cluster).
	Read func(arg string) (*TraceTable, error)
}

// TraceFormats is a registry of trace formats, a value: BuiltinTraceFormats
// lists the built-in ones; a binary's is part of its extensions
// (experiments/extensions).
type TraceFormats struct{ r *reg.Registry[TraceFormat] }

// NewTraceFormats returns an empty registry.
func NewTraceFormats() *TraceFormats { return &TraceFormats{r: reg.New[TraceFormat]("trace format")} }

// Register adds a format; a malformed registration or a taken name is an
// error.
func (f *TraceFormats) Register(tf TraceFormat) error {
	if !reg.CheckName(tf.Name) {
		return fmt.Errorf("trace format name %q: want lower-case letters, digits and '-'", tf.Name)
	}
	if tf.Read == nil {
		return fmt.Errorf("trace format %q has no Read", tf.Name)
	}
	return f.r.Add(tf.Name, tf)
}

// Names lists the registered formats, sorted.
func (f *TraceFormats) Names() []string { return f.r.Names() }

// Lookup returns the format called name.
func (f *TraceFormats) Lookup(name string) (TraceFormat, bool) { return f.r.Lookup(name) }

// IsTraceName reports whether ref is spelled FORMAT:ARG with a registered
// FORMAT (a file of that name is written with a folder, ./itp:x).
func (f *TraceFormats) IsTraceName(ref string) bool {
	name, _, ok := strings.Cut(ref, ":")
	if !ok {
		return false
	}
	_, known := f.r.Lookup(name)
	return known
}

// Read reads the trace ref names, "FORMAT:ARG". The table's Name is ref
// and its Format the format's name.
func (f *TraceFormats) Read(ref string) (*TraceTable, error) {
	name, arg, ok := strings.Cut(ref, ":")
	if !ok {
		return nil, fmt.Errorf("%s: not a trace name (want FORMAT:ARG, FORMAT one of %s)", ref, strings.Join(f.Names(), ", "))
	}
	tf, err := f.r.Get(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	if arg == "" {
		return nil, fmt.Errorf("%s: no argument (want %s)", ref, tf.Usage)
	}
	t, err := tf.Read(arg)
	if err != nil {
		return nil, err
	}
	t.Name, t.Format = ref, tf.Name
	return t, nil
}

// BuiltinTraceFormats are the built-in trace formats: itp, philly,
// philly-log, helios, acme, pai and csv (a mapped CSV).
func BuiltinTraceFormats() []TraceFormat {
	return []TraceFormat{
		{Name: "itp", Usage: "itp:cluster01 … itp:cluster" + fmt.Sprint(itp.Clusters) + " (embedded), or itp:FILE",
			Doc:  "Microsoft ITP (ElasticFlow, ASPLOS'23) cluster, embedded: " + itp.Attribution,
			Read: ReadITP},
		{Name: "philly", Usage: "philly:FILE (the reduced table timestamp,duration,num_gpus,gpu_time,cluster)",
			Doc: "Microsoft Philly (ATC'19), reduced table as the Pollux artifact's traces/philly.csv",
			Read: func(arg string) (*TraceTable, error) {
				t, _, err := ReadPhillyTrace(arg)
				return t, err
			}},
		{Name: "philly-log", Usage: "philly-log:FILE (cluster_job_log)",
			Doc: "Microsoft Philly (ATC'19) cluster_job_log of msr-fiddle/philly-traces, streamed", Read: ReadPhillyLogTrace},
		{Name: "helios", Usage: "helios:FILE (cluster_log.csv) or helios:FOLDER (cluster_log.csv and cluster_gpu_number.csv)",
			Doc: "SenseTime Helios (SC'21), S-Lab/HeliosData, CC BY 4.0", Read: ReadHelios},
		{Name: "acme", Usage: "acme:FILE (trace_seren.csv or trace_kalos.csv)",
			Doc: "Shanghai AI Lab Acme (NSDI'24) Seren or Kalos, InternLM/AcmeTrace, CC BY 4.0", Read: ReadAcme},
		{Name: "pai", Usage: "pai:FOLDER (pai_job_table.csv and pai_task_table.csv)",
			Doc: "Alibaba PAI 2020 (NSDI'22), alibaba/clusterdata cluster-trace-gpu-v2020, CC BY 4.0", Read: ReadPAIFolder},
		{Name: "csv", Usage: "csv:MAPPING.json (names the CSV file and its columns)",
			Doc: "any CSV trace, by a column mapping", Read: ReadMappedTrace},
	}
}

// MustTraceFormats returns a registry of the given formats; it panics on
// a malformed registration or a name given twice (a programming error).
func MustTraceFormats(tfs ...TraceFormat) *TraceFormats {
	f := NewTraceFormats()
	for _, tf := range tfs {
		if err := f.Register(tf); err != nil {
			panic("traces: " + err.Error())
		}
	}
	return f
}

// Formats lists the registered formats by name.
func (f *TraceFormats) Formats() []TraceFormat { return f.r.All() }
