package models

// NamedParams is θ_sys (Params) with the snake_case names that files and
// messages write it with: a profiles file's "throughput" (profiles'
// CompactThroughput) and the policy protocol's "params"
// (policies/protocol).
type NamedParams struct {
	AlphaC float64 `json:"alpha_c"`
	BetaC  float64 `json:"beta_c"`
	AlphaR float64 `json:"alpha_r"`
	BetaR  float64 `json:"beta_r"`
	AlphaN float64 `json:"alpha_n"`
	BetaN  float64 `json:"beta_n"`
	Gamma  float64 `json:"gamma"`
}

// Params converts to Params.
func (n NamedParams) Params() Params {
	return Params{AlphaC: n.AlphaC, BetaC: n.BetaC, AlphaR: n.AlphaR, BetaR: n.BetaR, AlphaN: n.AlphaN, BetaN: n.BetaN, Gamma: n.Gamma}
}

// Named converts to NamedParams.
func (p Params) Named() NamedParams {
	return NamedParams{AlphaC: p.AlphaC, BetaC: p.BetaC, AlphaR: p.AlphaR, BetaR: p.BetaR, AlphaN: p.AlphaN, BetaN: p.BetaN, Gamma: p.Gamma}
}
