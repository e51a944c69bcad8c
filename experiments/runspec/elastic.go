package runspec

import (
	"errors"
	"fmt"

	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/sim"
)

// ElasticSpec is the elastic-cluster part of a RunSpec: empty (no
// Autoscaler) for a fixed cluster.
type ElasticSpec struct {
	Autoscaler string `json:"autoscaler,omitempty"`
	// AutoscalerOptions are the autoscaler's effective options (see
	// autoscalers.Registry.Resolve); empty for its defaults.
	AutoscalerOptions policies.OptionSet `json:"autoscaler_options,omitempty"`
	// MinNodes (default 1) and MaxNodes (default Nodes) bound the cluster.
	MinNodes int `json:"min_nodes,omitempty"`
	MaxNodes int `json:"max_nodes,omitempty"`
	// ProvisionDelay is the time from ordering a node to its being ready.
	ProvisionDelay float64 `json:"provision_delay_s,omitempty"`
	// NodePrice is the price of one node-hour.
	NodePrice float64 `json:"node_price,omitempty"`
}

// WithAutoscalerOptions returns s with option layers (JSON objects or
// "key=value" lists) applied on top of its autoscaler's options, which it
// makes canonical (every option, defaults included), against reg.
func (s RunSpec) WithAutoscalerOptions(reg Registries, layers ...any) (RunSpec, error) {
	if s.Autoscaler == "" {
		if len(layers) > 0 || s.AutoscalerOptions != "" {
			return s, errors.New("autoscaler options need --autoscaler")
		}
		return s, nil
	}
	opts, err := reg.AutoscalerRegistry().Resolve(s.Autoscaler, s.AutoscalerOptions, layers...)
	if err != nil {
		return s, err
	}
	s.AutoscalerOptions = opts
	return s, nil
}

// bounds are the effective minimum and maximum node counts.
func (e ElasticSpec) bounds(nodes int) (lo, hi int) {
	lo, hi = e.MinNodes, e.MaxNodes
	if lo == 0 {
		lo = 1
	}
	if hi == 0 {
		hi = nodes
	}
	return lo, hi
}

// validate checks the settings, naming the flag at fault.
func (e ElasticSpec) validate(nodes int) error {
	if e.Autoscaler == "" {
		if e.MinNodes != 0 || e.MaxNodes != 0 || e.ProvisionDelay != 0 || e.NodePrice != 0 || e.AutoscalerOptions != "" {
			return errors.New("--min-nodes, --max-nodes, --provision-delay, --node-price and autoscaler options need --autoscaler")
		}
		return nil
	}
	lo, hi := e.bounds(nodes)
	switch {
	case lo < 1:
		return fmt.Errorf("--min-nodes must be at least 1, got %d", e.MinNodes)
	case hi < lo:
		return fmt.Errorf("--max-nodes %d is below --min-nodes %d", hi, lo)
	case hi > MaxNodes:
		return fmt.Errorf("--max-nodes must be at most %d, got %d", MaxNodes, hi)
	case nodes < lo || nodes > hi:
		return fmt.Errorf("--nodes %d (the initial cluster) must be within --min-nodes %d and --max-nodes %d", nodes, lo, hi)
	case !(e.ProvisionDelay >= 0) || e.ProvisionDelay > MaxSeconds:
		return fmt.Errorf("--provision-delay must be in [0, %g] s, got %v s", MaxSeconds, e.ProvisionDelay)
	case !(e.NodePrice >= 0) || e.NodePrice > MaxPrice:
		return fmt.Errorf("--node-price must be in [0, %g], got %v", MaxPrice, e.NodePrice)
	}
	return nil
}

// config is the engine's elastic setting (nil for a fixed cluster),
// without its autoscaler (EngineConfig builds it): without one the engine
// refuses it.
func (e ElasticSpec) config(nodes int) *sim.Elastic {
	if e.Autoscaler == "" {
		return nil
	}
	lo, hi := e.bounds(nodes)
	return &sim.Elastic{MinNodes: lo, MaxNodes: hi, ProvisionDelay: e.ProvisionDelay, NodePrice: e.NodePrice}
}
