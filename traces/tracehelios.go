package traces

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Columns of the Helios and Acme job logs (both Slurm exports) that the
// readers use.
const (
	SlurmColJobID    = "job_id"
	SlurmColUser     = "user"
	SlurmColVC       = "vc"
	SlurmColGPUs     = "gpu_num"
	SlurmColNodes    = "node_num"
	SlurmColState    = "state"
	SlurmColSubmit   = "submit_time"
	SlurmColStart    = "start_time"
	SlurmColDuration = "duration"
	SlurmColType     = "type"
)

// HeliosColumns is the published header of Helios' cluster_log.csv.
func HeliosColumns() []string {
	return []string{"job_id", "user", "vc", "gpu_num", "cpu_num", "node_num", "state", "submit_time", "start_time", "end_time", "duration", "queue"}
}

// parseSlurmLog reads a Helios or Acme job log: submission from
// submit_time (2020-06-09 18:41:01, seconds after the earliest one), run
// time from duration, GPUs from gpu_num; user, vc, node_num, state and
// type where the file has them. A job with gpu_num 0 (a CPU job) or with
// an empty duration or start_time (it never ran) is counted, not kept.
func parseSlurmLog(r io.Reader, name, format string) (*TraceTable, error) {
	spec := traceCSV{required: []string{SlurmColJobID, SlurmColGPUs, SlurmColSubmit, SlurmColDuration}, calendar: true}
	t, err := readTraceCSV(r, name, spec, func(r *traceRow, _ *TraceReport) (TraceJob, string, error) {
		j := TraceJob{ID: r.id(SlurmColJobID), User: r.name(SlurmColUser), VC: r.name(SlurmColVC),
			Status: r.name(SlurmColState), Type: r.name(SlurmColType)}
		var err error
		if j.Submit, err = traceTime(r.cell(SlurmColSubmit), TimeDateTime); err != nil {
			return j, "", err
		}
		if j.GPUs, err = traceGPUs(r.cell(SlurmColGPUs)); err != nil {
			return j, "", err
		}
		if r.has(SlurmColNodes) && r.text(SlurmColNodes) != "" {
			if j.Nodes, err = traceGPUs(r.cell(SlurmColNodes)); err != nil {
				return j, "", err
			}
		}
		if r.text(SlurmColDuration) == "" || (r.has(SlurmColStart) && r.text(SlurmColStart) == "") {
			return j, TraceDropNoRunTime, nil
		}
		if j.Duration, err = traceDuration(r.cell(SlurmColDuration)); err != nil {
			return j, "", err
		}
		if j.GPUs == 0 {
			return j, TraceDropZeroGPUs, nil
		}
		return j, "", nil
	})
	if err != nil {
		return nil, err
	}
	t.Format = format
	return t, nil
}

// ParseHelios reads Helios' cluster_log.csv (S-Lab/HeliosData; header
// job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,
// end_time,duration,queue; states COMPLETED, CANCELLED, FAILED, TIMEOUT,
// NODE_FAIL) from r; name is used in messages. See parseSlurmLog.
func ParseHelios(r io.Reader, name string) (*TraceTable, error) {
	return parseSlurmLog(r, name, "helios")
}

// Files of a Helios cluster's folder.
const (
	HeliosJobFile = "cluster_log.csv"
	HeliosGPUFile = "cluster_gpu_number.csv"
)

// ReadHelios reads a Helios cluster: path is its cluster_log.csv, or the
// folder holding it and, optionally, cluster_gpu_number.csv, whose largest
// daily total becomes the table's ClusterGPUs.
func ReadHelios(path string) (*TraceTable, error) {
	jobs, gpus := path, ""
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		jobs = filepath.Join(path, HeliosJobFile)
		if _, err := os.Stat(filepath.Join(path, HeliosGPUFile)); err == nil {
			gpus = filepath.Join(path, HeliosGPUFile)
		}
	}
	f, err := openInput(jobs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := ParseHelios(f, jobs)
	if err != nil {
		return nil, err
	}
	if gpus != "" {
		c, err := ReadHeliosGPUs(gpus)
		if err != nil {
			return nil, err
		}
		t.ClusterGPUs = c.MaxTotal
		t.Report.Notes = append(t.Report.Notes, fmt.Sprintf("%s: %d days, at most %d GPUs in all", gpus, c.Days, c.MaxTotal))
	}
	return t, nil
}

// ClusterCapacity is what a Helios cluster_gpu_number.csv says of the
// cluster's size: GPUs per virtual cluster per day.
type ClusterCapacity struct {
	// Days is the number of days (rows) the file has.
	Days int
	// MaxTotal is the largest sum over the virtual clusters of one day.
	MaxTotal int
	// MaxByVC is each virtual cluster's largest GPU count.
	MaxByVC map[string]int
}

// ReadHeliosGPUs reads Helios' cluster_gpu_number.csv. Its header is not
// part of the published schema in the paper; both layouts are accepted:
// wide (the first column a date, every other column a virtual cluster,
// cells GPU counts) and long (columns date, vc and gpu_num, one row per
// virtual cluster and day). Empty cells count as 0.
func ReadHeliosGPUs(path string) (*ClusterCapacity, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseHeliosGPUs(f, path)
}

// ParseHeliosGPUs reads a cluster_gpu_number.csv from r; see
// ReadHeliosGPUs.
func ParseHeliosGPUs(r io.Reader, name string) (*ClusterCapacity, error) {
	c := &ClusterCapacity{MaxByVC: map[string]int{}}
	totals := map[string]int{} // date -> GPUs
	var order []string
	add := func(date, vc string, n int) {
		if _, ok := totals[date]; !ok {
			order = append(order, date)
		}
		totals[date] += n
		c.MaxByVC[vc] = max(c.MaxByVC[vc], n)
	}
	var cols []string
	_, err := scanTraceCSV(r, name, traceCSV{}, func(row *traceRow) error {
		if cols == nil {
			cols = make([]string, len(row.index))
			for k, i := range row.index {
				cols[i] = k
			}
		}
		gpus := func(col string) (int, error) {
			if row.text(col) == "" {
				return 0, nil
			}
			return traceGPUs(row.cell(col))
		}
		if row.has("vc") && row.has("gpu_num") {
			n, err := gpus("gpu_num")
			if err != nil {
				return err
			}
			add(row.text(cols[0]), row.text("vc"), n)
			return nil
		}
		if len(cols) < 2 {
			return row.errorf("want a date column and one column per virtual cluster")
		}
		date := row.text(cols[0])
		if _, ok := totals[date]; !ok {
			order = append(order, date)
			totals[date] = 0
		}
		for _, vc := range cols[1:] {
			n, err := gpus(vc)
			if err != nil {
				return err
			}
			totals[date] += n
			c.MaxByVC[vc] = max(c.MaxByVC[vc], n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Days = len(order)
	if c.Days == 0 {
		return nil, &InputError{File: name, Line: 2, Err: errors.New("no rows: the file has a header only")}
	}
	for _, d := range order {
		c.MaxTotal = max(c.MaxTotal, totals[d])
	}
	return c, nil
}
