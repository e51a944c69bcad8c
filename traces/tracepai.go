package traces

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// PAIJobColumns is the published column order of Alibaba PAI 2020's
// pai_job_table.csv (alibaba/clusterdata, cluster-trace-gpu-v2020; the
// files have no header line, which the readers accept, as they accept
// one).
func PAIJobColumns() []string {
	return []string{"job_name", "inst_id", "user", "status", "start_time", "end_time"}
}

// PAITaskColumns is the published column order of pai_task_table.csv.
func PAITaskColumns() []string {
	return []string{"job_name", "task_name", "inst_num", "status", "start_time", "end_time", "plan_cpu", "plan_mem", "plan_gpu", "gpu_type"}
}

// Files of the PAI 2020 trace that ReadPAIFolder reads.
const (
	PAIJobFile  = "pai_job_table.csv"
	PAITaskFile = "pai_task_table.csv"
)

// paiJob is what the task table says of one job.
type paiJob struct {
	gpus        int
	fractional  bool
	start, end  float64 // earliest task start, latest task end
	ran         bool    // some task has both times
	gpuType     string
	instances   int
	tasksInFile int
}

// ParsePAI reads the PAI 2020 trace from its task table (tasks, read
// first) and job table (jobs); the names are used in messages. A job's
// submission is the job table's start_time (Unix seconds, the table then
// shifted so the earliest is 0), its status and user the job table's; its
// duration is the latest end_time minus the earliest start_time of its
// tasks that ran, its GPU type that of its first task with one.
//
// GPUs: plan_gpu is in percent of one GPU per instance (50 = half a GPU).
// Each instance is given ⌈plan_gpu/100⌉ whole GPUs (a whole-GPU scheduler
// gives a half-GPU request one GPU), and the job gets the sum over its
// tasks of inst_num × that. Jobs with a fractional request are counted in
// the report (Fractional). A job whose tasks ask no GPU (plan_gpu empty or
// 0) is left out as a CPU job, one without task rows or whose tasks never
// ran as never ran.
func ParsePAI(jobs io.Reader, jobName string, tasks io.Reader, taskName string) (*TraceTable, error) {
	agg := map[string]*paiJob{}
	taskSpec := traceCSV{required: []string{"job_name", "inst_num", "start_time", "end_time", "plan_gpu"}, headerless: PAITaskColumns()}
	nTasks, err := scanTraceCSV(tasks, taskName, taskSpec, func(r *traceRow) error {
		name := r.text("job_name")
		if name == "" {
			return r.cell("job_name").errorf("empty job name")
		}
		inst, err := r.cell("inst_num").int()
		if err != nil {
			return err
		}
		if inst < 0 || inst > 1<<20 {
			return r.cell("inst_num").errorf("instance count %d out of range", inst)
		}
		plan := 0.0
		if r.text("plan_gpu") != "" {
			if plan, err = r.cell("plan_gpu").float(); err != nil {
				return err
			}
			if plan < 0 || plan > 100*(1<<16) {
				return r.cell("plan_gpu").errorf("plan_gpu %v out of range (percent of a GPU)", plan)
			}
		}
		j := agg[name]
		if j == nil {
			if len(agg) >= MaxTraceRows {
				return r.errorf("more than %d jobs", MaxTraceRows)
			}
			j = &paiJob{start: math.Inf(1), end: math.Inf(-1)}
			agg[strings.Clone(name)] = j
		}
		j.tasksInFile++
		j.instances += inst
		per := math.Ceil(plan / 100)
		j.gpus += inst * int(per)
		if inst > 0 && plan > 0 && per != plan/100 {
			j.fractional = true
		}
		if j.gpuType == "" {
			j.gpuType = r.name("gpu_type")
		}
		if r.text("start_time") != "" && r.text("end_time") != "" {
			s, err := traceTime(r.cell("start_time"), TimeUnix)
			if err != nil {
				return err
			}
			e, err := traceTime(r.cell("end_time"), TimeUnix)
			if err != nil {
				return err
			}
			if e < s {
				return r.cell("end_time").errorf("ends at %v, before its start %v", e, s)
			}
			j.start, j.end, j.ran = math.Min(j.start, s), math.Max(j.end, e), true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	jobSpec := traceCSV{required: []string{"job_name", "start_time"}, headerless: PAIJobColumns(), calendar: true}
	t, err := readTraceCSV(jobs, jobName, jobSpec, func(r *traceRow, rep *TraceReport) (TraceJob, string, error) {
		j := TraceJob{ID: r.id("job_name"), User: r.name("user"), Status: r.name("status")}
		var err error
		if j.Submit, err = traceTime(r.cell("start_time"), TimeUnix); err != nil {
			return j, "", err
		}
		a := agg[j.ID]
		switch {
		case a == nil || !a.ran:
			return j, TraceDropNoRunTime, nil
		case a.gpus == 0:
			return j, TraceDropZeroGPUs, nil
		case a.gpus > 1<<24:
			return j, "", r.errorf("job %q: its tasks ask for %d GPUs in all, out of range", j.ID, a.gpus)
		}
		j.GPUs, j.Duration, j.GPUType = a.gpus, a.end-a.start, a.gpuType
		if a.fractional {
			rep.Fractional++
		}
		return j, "", nil
	})
	if err != nil {
		return nil, err
	}
	t.Format = "pai"
	t.Report.File = jobName + " and " + taskName
	t.Report.Notes = append(t.Report.Notes, fmt.Sprintf("%s: %d task rows of %d jobs", taskName, nTasks, len(agg)))
	return t, nil
}

// ReadPAI reads the PAI 2020 job and task tables (see ParsePAI).
func ReadPAI(jobPath, taskPath string) (*TraceTable, error) {
	tf, err := openInput(taskPath)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	jf, err := openInput(jobPath)
	if err != nil {
		return nil, err
	}
	defer jf.Close()
	return ParsePAI(jf, jobPath, tf, taskPath)
}

// ReadPAIFolder reads pai_job_table.csv and pai_task_table.csv of a
// folder (see ParsePAI).
func ReadPAIFolder(dir string) (*TraceTable, error) {
	return ReadPAI(filepath.Join(dir, PAIJobFile), filepath.Join(dir, PAITaskFile))
}
