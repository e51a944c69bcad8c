package traces

import "io"

// AcmeColumns is the published header of Acme's trace_seren.csv; Kalos'
// trace_kalos.csv adds KalosColumns.
func AcmeColumns() []string {
	return []string{"job_id", "user", "node_num", "gpu_num", "cpu_num", "type", "state", "submit_time", "start_time", "end_time", "duration", "queue", "gpu_time"}
}

// KalosColumns are the columns Kalos' trace adds to AcmeColumns.
func KalosColumns() []string {
	return []string{"mem_per_pod_GB", "shared_mem_per_pod", "fail_time", "stop_time"}
}

// ParseAcme reads a trace of Shanghai AI Lab's Acme (InternLM/AcmeTrace,
// NSDI'24): trace_seren.csv or trace_kalos.csv (the header AcmeColumns,
// Kalos adding KalosColumns), from r; name is used in messages. The type
// column (Pretrain, SFT, Evaluation, Debug, MLLM, Other) becomes
// TraceJob.Type; there is no virtual cluster. See parseSlurmLog for the
// rest, which is Helios'.
func ParseAcme(r io.Reader, name string) (*TraceTable, error) {
	return parseSlurmLog(r, name, "acme")
}

// ReadAcme reads an Acme trace file (see ParseAcme).
func ReadAcme(path string) (*TraceTable, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseAcme(f, path)
}
