package traces

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/itp"
)

// Columns of the ITP (ElasticFlow) raw traces.
const (
	ITPColJobID    = "job_id"
	ITPColSubmit   = "submission_time"
	ITPColDuration = "duration"
	ITPColGPUs     = "num_gpu"
)

// ParseITP reads one cluster file of Microsoft's ITP traces
// (job_id,submission_time,duration,num_gpu: seconds from the start of
// collection, run time in seconds, GPUs); name is used in messages.
// Submission times are kept as written (they are relative already).
func ParseITP(r io.Reader, name string) (*TraceTable, error) {
	spec := traceCSV{required: []string{ITPColJobID, ITPColSubmit, ITPColDuration, ITPColGPUs}}
	t, err := readTraceCSV(r, name, spec, func(r *traceRow, _ *TraceReport) (TraceJob, string, error) {
		j := TraceJob{ID: r.id(ITPColJobID)}
		var err error
		if j.Submit, err = traceTime(r.cell(ITPColSubmit), TimeSeconds); err != nil {
			return j, "", err
		}
		if j.Duration, err = traceDuration(r.cell(ITPColDuration)); err != nil {
			return j, "", err
		}
		if j.GPUs, err = traceGPUs(r.cell(ITPColGPUs)); err != nil {
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
	t.Format = "itp"
	return t, nil
}

// ReadITP reads a cluster of the embedded ITP traces, "cluster01" …
// "cluster10" (also "02", "2"): no file is needed; the table is named
// itp:clusterNN. Any other argument is read as a file of the ITP format
// (a cluster CSV unpacked from the archive, or one of another source).
func ReadITP(cluster string) (*TraceTable, error) {
	name, err := itp.ClusterName(cluster)
	if err != nil {
		if _, serr := os.Stat(cluster); serr != nil {
			// Neither: say both, as both were looked for.
			file := "no such file"
			if !errors.Is(serr, fs.ErrNotExist) {
				file = "no file it can read (" + fserr.Cause(serr).Error() + ")"
			}
			return nil, &InputError{File: "itp:" + cluster, Err: fmt.Errorf("%v and %s", err, file)}
		}
		f, err := openInput(cluster)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return ParseITP(f, cluster)
	}
	r, err := itp.Open(name)
	if err != nil {
		return nil, err
	}
	return ParseITP(r, "itp:"+name)
}
