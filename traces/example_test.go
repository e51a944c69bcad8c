package traces_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/polluxsim/polluxsim/traces"
)

// Read a workload in the reference CSV format, check it against the known
// applications and the cluster size, and look at its jobs.
func ExampleParse() {
	const csv = `name,time,application,num_replicas,batch_size
cifar10-0,107,cifar10,6,2048
ncf-1,135,ncf,1,32768
imagenet-2,262,imagenet,48,6400
`
	apps := []string{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}
	w, _, err := traces.Parse(strings.NewReader(csv), "workload.csv", traces.ReadOptions{Apps: apps})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range w.Jobs {
		fmt.Printf("%s at %gs: %d GPUs, batch %d\n", j.Name, j.Time, j.Replicas, j.Batch)
	}
	// A 32-GPU cluster cannot run the imagenet job.
	fmt.Println(traces.Validate(w, apps, 32))
	// Output:
	// cifar10-0 at 107s: 6 GPUs, batch 2048
	// ncf-1 at 135s: 1 GPUs, batch 32768
	// imagenet-2 at 262s: 48 GPUs, batch 6400
	// workload.csv:4: job "imagenet-2": column "num_replicas": asks for 48 GPUs but the cluster has only 32
}

// Problems name the file, line and column.
func ExampleParse_errors() {
	const csv = "name,time,application,num_replicas,batch_size\nbert-0,soon,bert,4,48\n"
	_, _, err := traces.Parse(strings.NewReader(csv), "workload.csv", traces.ReadOptions{})
	fmt.Println(err)
	// Output:
	// workload.csv:2: column "time": "soon" is not a number
}

// Generate a 0.5× load workload (80 jobs) from the Philly summary embedded
// in the binary. The per-application B0 and tuned (GPUs, batch) pairs come
// from the profiles; here they are the reference's.
func ExampleGenerate() {
	src, err := traces.DefaultSummary()
	if err != nil {
		fmt.Println(err)
		return
	}
	pairs := func(batch int, gpus ...int) []traces.TunedPair {
		var ps []traces.TunedPair
		for _, g := range gpus {
			ps = append(ps, traces.TunedPair{Replicas: g, Batch: batch})
		}
		return ps
	}
	apps := map[string]traces.AppConfig{
		"bert":        {InitBatch: 12, Tuned: pairs(384, 6, 8, 12, 16)},
		"cifar10":     {InitBatch: 128, Tuned: append(pairs(2048, 6, 8), pairs(4096, 12, 16)...)},
		"deepspeech2": {InitBatch: 20, Tuned: append(pairs(320, 6, 8), pairs(640, 12)...)},
		"imagenet":    {InitBatch: 200, Tuned: append(pairs(3200, 24), pairs(6400, 32, 48)...)},
		"ncf":         {InitBatch: 256, Tuned: pairs(32768, 1)},
		"yolov3":      {InitBatch: 8, Tuned: pairs(64, 4)},
	}
	w, err := traces.Generate(src, traces.GenerateOptions{Jobs: 80, Seed: 1, Config: traces.ConfigTuned, Apps: apps})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(w.Jobs), "jobs, the first ones:")
	w.Jobs = w.Jobs[:3]
	if err := traces.Write(os.Stdout, w); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 80 jobs, the first ones:
	// name,time,application,num_replicas,batch_size
	// cifar10-0,1204,cifar10,12,4096
	// ncf-1,1323,ncf,1,32768
	// cifar10-2,1783,cifar10,12,4096
}

// The Pollux artifact's reference workloads are embedded: paper:1 …
// paper:8 (TunedJobs configurations) and paper-realistic:1 … 8.
func ExampleReadPaper() {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Source, len(w.Jobs), "jobs")
	// Output:
	// paper:1 160 jobs
}
