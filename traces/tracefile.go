package traces

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Open reads a trace named as `trace summarize` takes it: a name
// FORMAT:ARG of a format of f (Read), or a file or folder whose format is
// recognised by ReadTraceFile.
func (f *TraceFormats) Open(ref string) (*TraceTable, error) {
	if f.IsTraceName(ref) {
		return f.Read(ref)
	}
	return ReadTraceFile(ref)
}

// builtinFormat is the built-in trace format called name.
func builtinFormat(name string) (TraceFormat, bool) {
	for _, tf := range BuiltinTraceFormats() {
		if tf.Name == name {
			return tf, true
		}
	}
	return TraceFormat{}, false
}

// builtinFormatNames lists the built-in formats' names.
func builtinFormatNames() []string {
	return MustTraceFormats(BuiltinTraceFormats()...).Names()
}

// ReadTraceFile reads a trace file or folder of a built-in format, told
// by its header: job_id,submission_time,duration,num_gpu is ITP; the
// reduced Philly table's columns are Philly; gpu_num with submit_time is
// Helios when it has vc, Acme when it has type; a file starting with '['
// or '{' is Philly's cluster_job_log. A folder holding cluster_log.csv is
// Helios, one holding pai_job_table.csv and pai_task_table.csv is PAI.
// Anything else is an error that lists the FORMAT:ARG names to use.
func ReadTraceFile(path string) (*TraceTable, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		has := func(name string) bool { _, err := os.Stat(filepath.Join(path, name)); return err == nil }
		switch {
		case has(HeliosJobFile):
			return named(ReadHelios(path))("helios", path)
		case has(PAIJobFile) && has(PAITaskFile):
			return named(ReadPAIFolder(path))("pai", path)
		}
		return nil, &InputError{File: path, Err: fmt.Errorf("a folder of no known trace (want %s, or %s and %s)", HeliosJobFile, PAIJobFile, PAITaskFile)}
	}
	format, err := sniffTrace(path)
	if err != nil {
		return nil, err
	}
	tf, _ := builtinFormat(format)
	return named(tf.Read(path))(format, path)
}

// named sets a table's name and format after a read.
func named(t *TraceTable, err error) func(format, name string) (*TraceTable, error) {
	return func(format, name string) (*TraceTable, error) {
		if err != nil {
			return nil, err
		}
		t.Name, t.Format = name, format
		return t, nil
	}
}

// sniffTrace tells a trace file's format by its first line.
func sniffTrace(path string) (string, error) {
	f, err := openInput(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(newLineLimiter(f, maxLineBytes), 1<<16)
	first, err := br.ReadString('\n')
	if err != nil && first == "" {
		return "", &InputError{File: path, Line: 1, Err: fmt.Errorf("empty file")}
	}
	trimmed := strings.TrimSpace(strings.TrimPrefix(first, "\ufeff"))
	if strings.HasPrefix(trimmed, "[") || strings.HasPrefix(trimmed, "{") {
		return "philly-log", nil
	}
	rec, err := csv.NewReader(strings.NewReader(trimmed)).Read()
	cols := map[string]bool{}
	if err == nil {
		for _, c := range rec {
			cols[strings.TrimSpace(c)] = true
		}
	}
	all := func(names ...string) bool {
		for _, n := range names {
			if !cols[n] {
				return false
			}
		}
		return true
	}
	switch {
	case all(ITPColJobID, ITPColSubmit, ITPColDuration, ITPColGPUs):
		return "itp", nil
	case all(phillyColumns()...):
		return "philly", nil
	case all(SlurmColGPUs, SlurmColSubmit, SlurmColDuration, SlurmColVC):
		return "helios", nil
	case all(SlurmColGPUs, SlurmColSubmit, SlurmColDuration, SlurmColType):
		return "acme", nil
	}
	return "", &InputError{File: path, Line: 1, Err: fmt.Errorf("not a trace of a known format by its header; name it FORMAT:%s with FORMAT one of %s (csv:MAPPING.json for any other CSV)",
		path, strings.Join(builtinFormatNames(), ", "))}
}
