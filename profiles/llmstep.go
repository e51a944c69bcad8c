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
// the GPU type's size). On one network tier net is the zero Network;
// otherwise its racks are those of perNode's non-zero entries, in order.
// ok is false when none fits.
func llmStep(cal llm.Calibration, m llm.Transformer, g llm.GPU, perNode []int, net Network, local int) (c llm.Candidate, ok bool, err error) {
	k := 0
	for _, n := range perNode {
		k += max(n, 0)
	}
	alloc, topo := llm.AllocationOf(perNode), llm.Topology{}
	if len(net.Racks) > 0 {
		alloc, topo = racked(alloc, net)
	}
	c, err = cal.Plan(m, g, alloc, topo, k*local, llmSpace)
	switch {
	case errors.Is(err, llm.ErrNoFit):
		return llm.Candidate{}, false, nil
	case err != nil:
		return llm.Candidate{}, false, err
	}
	return c, true, nil
}

// racked renumbers an allocation's nodes so that llm.Topology's racks of
// consecutive nodes are net's: the i-th share's node becomes
// rack·len(a) + i, which keeps the shares' order (racks are runs of
// consecutive nodes, so a placement in node order is in rack order).
func racked(a llm.Allocation, net Network) (llm.Allocation, llm.Topology) {
	out := make(llm.Allocation, len(a))
	for i, s := range a {
		out[i] = llm.NodeShare{Node: net.Racks[i]*len(a) + i, GPUs: s.GPUs}
	}
	return out, llm.Topology{RackNodes: len(a), Oversubscription: net.Oversub}
}
