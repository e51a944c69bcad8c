package profiles_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/polluxsim/polluxsim/profiles"
)

// writeExampleData writes a tiny made-up application in the reference
// format, as a user's own measurements would look.
func writeExampleData() string {
	root, err := os.MkdirTemp("", "profiles-example")
	if err != nil {
		log.Fatal(err)
	}
	app := filepath.Join(root, "traces", "mymodel")
	if err := os.MkdirAll(app, 0o755); err != nil {
		log.Fatal(err)
	}
	files := map[string]string{
		"placements.csv": "placement,local_bsz,step_time,sync_time\n" +
			"1,32,0.10,0.001\n1,64,0.18,0.001\n" +
			"2,32,0.12,0.02\n2,64,0.20,0.02\n" +
			"11,32,0.20,0.10\n11,64,0.28,0.10\n" +
			"12,32,0.22,0.11\n12,64,0.30,0.11\n" +
			"22,32,0.25,0.13\n22,64,0.33,0.13\n",
		"scalability.csv": "num_nodes,num_replicas,local_bsz,step_time,sync_time\n" +
			"4,4,32,0.40,0.30\n4,4,64,0.48,0.30\n4,8,32,0.45,0.33\n4,8,64,0.53,0.33\n",
		"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n" +
			"100,100,0.5,2.0,1.0\n200,200,0.7,1.0,4.0\n",
		"validation-256.csv": "progress,iteration,metric,grad_sqr,grad_var\n" +
			"101,30,0.45,2.2,1.5\n203,55,0.69,1.1,3.0\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(app, name), []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return root
}

// Load reads measured tables from a folder in the reference format; Step
// answers for measured placements (in any rotation, idle nodes ignored) and
// interpolates others.
func ExampleLoad() {
	root := writeExampleData()
	defer os.RemoveAll(root)

	set, err := profiles.Load(root)
	if err != nil {
		log.Fatal(err)
	}
	app := set.Apps["mymodel"]
	l := app.Limits
	fmt.Printf("%v batch %d..%d, %d..%d per GPU; %d epochs, target %v\n", set.Names(), l.InitBatch, l.MaxBatch, l.MinLocal, l.MaxLocal, app.Epochs, app.Target())

	step, sync := app.Truth.Step([]int{2, 1}, 48) // measured as "12", halfway between 32 and 64
	fmt.Printf("2+1 GPUs, 48 per GPU: step %.2f s, sync %.2f s\n", step, sync)
	step, sync = app.Truth.Step([]int{1, 2, 0, 2}, 32) // three nodes: interpolated
	fmt.Printf("1+2+2 GPUs, 32 per GPU: step %.3f s\n", step)
	// One accumulation step costs step − sync more.
	fmt.Printf("with 1 accumulation step: %.3f s\n", step+1*(step-sync))
	g := app.Truth.Grad(128, 1)
	fmt.Printf("efficiency at batch 128 in epoch 2: %.3f\n", g.Efficiency(64, 128))
	// Output:
	// [mymodel] batch 64..256, 32..64 per GPU; 2 epochs, target 200
	// 2+1 GPUs, 48 per GPU: step 0.26 s, sync 0.11 s
	// 1+2+2 GPUs, 32 per GPU: step 0.338 s
	// with 1 accumulation step: 0.453 s
	// efficiency at batch 128 in epoch 2: 0.820
}

// Default is the measured tables embedded in the binary: no files needed.
func ExampleDefault() {
	set := profiles.Default()
	app, err := set.App("cifar10")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(set.Names())
	l := app.Limits
	fmt.Printf("batch %d..%d, %d..%d per GPU; %d epochs\n", l.InitBatch, l.MaxBatch, l.MinLocal, l.MaxLocal, app.Epochs)
	for _, c := range profiles.TunedConfigs(app, 4) {
		fmt.Printf("%d GPUs × batch %d\n", c.Replicas, c.Batch)
	}
	// Output:
	// [bert cifar10 deepspeech2 imagenet ncf yolov3]
	// batch 128..4096, 32..1024 per GPU; 100 epochs
	// 6 GPUs × batch 2048
	// 8 GPUs × batch 2048
	// 12 GPUs × batch 4096
	// 16 GPUs × batch 4096
}

// ExampleLLM: the llm profile set's 70B pre-training job fits in no fewer
// than 15 H100s, and its gradient noise scale (in sequences) grows over
// its run as the loss falls.
func ExampleLLM() {
	set := profiles.LLM()
	app := set.Apps["llm-70b"]
	m0 := float64(app.Limits.InitBatch)
	fmt.Println("fewest H100s:", app.MinGPUs, "A100-40GB:", app.ForType("a100-40gb").MinGPUs)
	fmt.Printf("noise scale: %.0f sequences at the start, %.0f at the end\n",
		app.Truth.Grad(m0, 0).PGNS(m0), app.Truth.Grad(m0, app.Epochs-1).PGNS(m0))
	// Output:
	// fewest H100s: 15 A100-40GB: 32
	// noise scale: 1273 sequences at the start, 3117 at the end
}
