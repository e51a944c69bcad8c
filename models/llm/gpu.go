package llm

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// GPU is an accelerator type's published figures, in SI units.
type GPU struct {
	// Name is the canonical type name (h100, a100-80gb, a100-40gb).
	Name string
	// PeakFLOPS is the dense 16-bit (BF16/FP16) tensor-core peak, FLOP/s.
	PeakFLOPS float64
	// HBM is the device memory, bytes.
	HBM float64
	// NVLink is the per-GPU NVLink bandwidth in one direction, bytes/s:
	// the link of collectives inside a node.
	NVLink float64
	// Network is the per-GPU node-to-node bandwidth in one direction,
	// bytes/s (one NIC per GPU in the reference systems).
	Network float64
	// PerNode is the number of GPUs in a node's NVLink domain.
	PerNode int
}

const (
	giB  = 1 << 30
	gbit = 1e9 / 8
)

// gpus are the published figures. A100: NVIDIA A100 Tensor Core GPU
// datasheet (SXM4: 312 TFLOP/s BF16 dense, 40 or 80 GB HBM, NVLink 600 GB/s
// both directions) and the DGX A100 datasheet (8 × 200 Gb/s HDR InfiniBand
// per node; MosaicML's A100 clusters state 1,600 Gb/s per node, the same).
// H100: NVIDIA H100 Tensor Core GPU datasheet (SXM5: 989 TFLOP/s BF16 dense
// — 1,979 is with sparsity — 80 GB HBM3, NVLink 900 GB/s both directions)
// and the DGX H100 datasheet (8 × 400 Gb/s ConnectX-7 per node).
var gpus = map[string]GPU{
	"a100-40gb": {Name: "a100-40gb", PeakFLOPS: 312e12, HBM: 40 * giB, NVLink: 300e9, Network: 200 * gbit, PerNode: 8},
	"a100-80gb": {Name: "a100-80gb", PeakFLOPS: 312e12, HBM: 80 * giB, NVLink: 300e9, Network: 200 * gbit, PerNode: 8},
	"h100":      {Name: "h100", PeakFLOPS: 989e12, HBM: 80 * giB, NVLink: 450e9, Network: 400 * gbit, PerNode: 8},
}

// gpuAliases maps the names measurements use to the canonical ones.
var gpuAliases = map[string]string{
	"a100_40gb": "a100-40gb", "a100_80gb": "a100-80gb",
	"h100_80gb": "h100", "h100-80gb": "h100",
}

// GPUType returns the figures of the named GPU type, given by its canonical
// name or an alias (llm-foundry's a100_80gb, h100_80gb), case-insensitively.
func GPUType(name string) (GPU, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := gpuAliases[n]; ok {
		n = a
	}
	g, ok := gpus[n]
	if !ok {
		return GPU{}, fmt.Errorf("unknown LLM GPU type %q (known: %s)", name, strings.Join(GPUTypes(), ", "))
	}
	return g, nil
}

// GPUTypes lists the canonical GPU type names, sorted.
func GPUTypes() []string {
	var ns []string
	for n := range gpus {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Validate reports the first figure that cannot describe a GPU type.
func (g GPU) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"peak FLOP/s", g.PeakFLOPS}, {"HBM", g.HBM}, {"NVLink bandwidth", g.NVLink}, {"network bandwidth", g.Network}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("GPU type %q: %s %g must be positive and finite", g.Name, f.name, f.v)
		}
	}
	if g.PerNode < 1 {
		return fmt.Errorf("GPU type %q: %d GPUs per node, want ≥ 1", g.Name, g.PerNode)
	}
	return nil
}
