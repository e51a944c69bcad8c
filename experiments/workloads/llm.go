package workloads

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// llmKinds maps the job types of Acme's traces (the type column of
// trace_seren.csv and trace_kalos.csv) to the llm profile set's job kinds.
// MLLM (multimodal) and Other have none.
var llmKinds = map[string]string{
	"pretrain": profiles.LLMPretrain, "sft": profiles.LLMSFT,
	"evaluation": profiles.LLMEval, "debug": profiles.LLMDebug,
}

// llmReplay makes every job of trace t an application of the llm profile
// set at its own submission time, uncapped (docs/llm.md, "Replaying
// Acme"): its kind from its type, its model the largest of the set with
// at most one billion parameters per GPU it asked for, its GPUs the
// trace's, its batch by its kind. Jobs of other types are left out and
// counted in a warning.
func llmReplay(t *traces.TraceTable, set *profiles.Set) (*traces.Workload, []string, error) {
	w := &traces.Workload{Source: t.Name}
	skipped := map[string]int{}
	for _, tj := range t.Jobs {
		kind, ok := llmKinds[strings.ToLower(strings.TrimSpace(tj.Type))]
		if !ok {
			skipped[tj.Type]++
			continue
		}
		app, err := set.App(profiles.LLMAppName(llmSize(tj.GPUs), kind))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		w.Jobs = append(w.Jobs, traces.Job{Time: tj.Submit, App: app.Name, Replicas: tj.GPUs, Batch: llmBatch(app, kind, tj.GPUs)})
	}
	if len(w.Jobs) == 0 {
		return nil, nil, fmt.Errorf("%s: no job of type Pretrain, SFT, Evaluation or Debug (the llm profile set's kinds)", t.Name)
	}
	sort.SliceStable(w.Jobs, func(i, j int) bool { return w.Jobs[i].Time < w.Jobs[j].Time })
	t0 := w.Jobs[0].Time
	for i := range w.Jobs {
		w.Jobs[i].Time -= t0
		w.Jobs[i].Name = w.Jobs[i].App + "-" + strconv.Itoa(i)
	}
	var warn []string
	if n := len(t.Jobs) - len(w.Jobs); n > 0 {
		var types []string
		for ty, c := range skipped {
			types = append(types, fmt.Sprintf("%s %d", strconv.Quote(ty), c))
		}
		sort.Strings(types)
		warn = append(warn, fmt.Sprintf("%s: %d jobs of types without an LLM job kind left out (%s)", t.Name, n, strings.Join(types, ", ")))
	}
	return w, warn, nil
}

// llmSize is the model a job of gpus GPUs trains: the largest of the set
// with at most one billion parameters per GPU (an assumption; Acme's
// traces name no model), so that it fits in memory on every GPU type of
// the set.
func llmSize(gpus int) string {
	size := "1b"
	for _, s := range profiles.LLMSizes() {
		if b, err := strconv.Atoi(strings.TrimSuffix(s, "b")); err == nil && b <= gpus {
			size = s
		}
	}
	return size
}

// llmBatch is the batch, in sequences, a job of the kind asks for on gpus
// GPUs: pre-training at DeepSeek's optimal batch for its run (half its
// largest); debug, fine-tuning and evaluation at their initial batch; at
// least one sequence per GPU.
func llmBatch(app *profiles.App, kind string, gpus int) int {
	b := app.Limits.InitBatch
	if kind == profiles.LLMPretrain {
		b = app.Limits.MaxBatch / 2
	}
	return max(b, gpus)
}
