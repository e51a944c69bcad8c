package elasticflow_test

import (
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/artifacts/elasticflow"
	"github.com/polluxsim/polluxsim/profiles"
)

// An artifact trace (here two made-up jobs) read and converted: the
// deadline keeps the job's factor, (ddl - submit) / duration, over its
// run time here.
func ExampleConvert() {
	trace := `job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration
0,100,2000,cifar10,1100,4096,1,1000
1,160,1500,ncf,1000,32768,8,700
`
	jobs, err := elasticflow.ReadTrace(strings.NewReader(trace), "trace.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, rep, err := elasticflow.Convert(jobs, profiles.Default(), elasticflow.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, j := range w.Jobs {
		fmt.Printf("%s at %gs on %d GPUs, factor %.1f: %s\n", j.Name, j.Time, j.Replicas, jobs[i].Factor(), j.SLO())
	}
	fmt.Println(rep.Jobs, "jobs,", rep.BatchReplaced, "batch sizes replaced")
	// Output:
	// cifar10-0 at 0s on 1 GPUs, factor 1.0: deadline
	// ncf-1 at 60s on 8 GPUs, factor 1.2: deadline
	// 2 jobs, 0 batch sizes replaced
}
