package profiles

import (
	"errors"

	"github.com/polluxsim/polluxsim/models/llm"
)

// llmSpace is what the configuration search of an LLM job may choose: the
// llm-foundry stack (PyTorch FSDP with flash attention, the one stack
// models/llm calibrates on all three GPU types), micro-batches of at most
// 16 sequences, every sharding.
var llmSpace = llm.Space{Stack: llm.StackLLMFoundry, Flash: true, MaxMicroBatch: 16}

// llmStep is the one place the simulator asks models/llm how fast an LLM
// job trains: one step of model m on GPUs of type g placed perNode (GPUs
// on each node; zeros ignored) at local sequences per GPU, a global batch
// of K·local sequences, at its fastest configuration that fits in memory
// on that placement (llm.Calibration.Plan: tensor groups inside a node,
// pipeline stages across nodes, each layout timed by its links; nodes of
// the GPU type's size on one network tier). ok is false when none fits.
func llmStep(cal llm.Calibration, m llm.Transformer, g llm.GPU, perNode []int, local int) (c llm.Candidate, ok bool, err error) {
	k := 0
	for _, n := range perNode {
		k += max(n, 0)
	}
	c, err = cal.Plan(m, g, llm.AllocationOf(perNode), llm.Topology{}, k*local, llmSpace)
	switch {
	case errors.Is(err, llm.ErrNoFit):
		return llm.Candidate{}, false, nil
	case err != nil:
		return llm.Candidate{}, false, err
	}
	return c, true, nil
}
