package llm

import "fmt"

// Transformer is a dense decoder-only transformer and the sequence length
// it is trained at.
type Transformer struct {
	Name   string
	Params float64 // N, all parameters (embeddings included)
	Layers int     // L
	Hidden int     // h
	Heads  int     // a
	Vocab  int     // V
	SeqLen int     // s
}

// GPTParams is the parameter count of a GPT of L layers, hidden size h,
// vocabulary V and learned positions up to s (Narayanan et al. 2021, Eq. 2):
// 12·L·h²·(1 + 13/(12h) + (V + s)/(12·L·h)).
func GPTParams(layers, hidden, vocab, seqLen int) float64 {
	l, h := float64(layers), float64(hidden)
	return 12 * l * h * h * (1 + 13/(12*h) + float64(vocab+seqLen)/(12*l*h))
}

// DenseFLOPsPerSeq is 6·N·s: the forward and backward FLOPs of one
// sequence through the weights (2 per parameter per token forward, 4
// backward).
func (m Transformer) DenseFLOPsPerSeq() float64 {
	return 6 * m.Params * float64(m.SeqLen)
}

// AttentionFLOPsPerSeq is 12·L·h·s²: the forward and backward FLOPs of one
// sequence in the attention score and value products (QKᵀ and AV, 2·s²·h
// each forward per layer, twice that backward).
func (m Transformer) AttentionFLOPsPerSeq() float64 {
	s := float64(m.SeqLen)
	return 12 * float64(m.Layers) * float64(m.Hidden) * s * s
}

// ModelFLOPsPerSeq is the model FLOPs of one sequence, the numerator of
// model FLOPs utilisation (MFU): DenseFLOPsPerSeq + AttentionFLOPsPerSeq,
// without the recomputation of checkpointed activations.
func (m Transformer) ModelFLOPsPerSeq() float64 {
	return m.DenseFLOPsPerSeq() + m.AttentionFLOPsPerSeq()
}

// Validate reports the first field that cannot describe a transformer.
func (m Transformer) Validate() error {
	switch {
	case !(m.Params > 0) || m.Params > 1e15:
		return fmt.Errorf("transformer %q: parameters %g not in (0, 1e15]", m.Name, m.Params)
	case m.Layers < 1, m.Hidden < 1, m.Heads < 1, m.Vocab < 1, m.SeqLen < 1,
		m.Layers > 1e5, m.Hidden > 1e7, m.Vocab > 1e8, m.SeqLen > 1e8:
		return fmt.Errorf("transformer %q: layers %d, hidden %d, heads %d, vocab %d, sequence %d: each must be ≥ 1 and of a plausible size",
			m.Name, m.Layers, m.Hidden, m.Heads, m.Vocab, m.SeqLen)
	case m.Hidden%m.Heads != 0:
		return fmt.Errorf("transformer %q: hidden %d not a multiple of heads %d", m.Name, m.Hidden, m.Heads)
	}
	return nil
}
