package llm

// Fitted is the calibration Fit returns on the fitting subset of the
// embedded measurements (FitRows), rounded to four significant digits; a
// test refits and checks it.
func Fitted() Calibration {
	return Calibration{
		Stacks: map[string]StackCalibration{
			StackKey(StackLLMFoundry, "a100-40gb"): {PeakFraction: 0.7683, Attention: 0.9214},
			StackKey(StackLLMFoundry, "a100-80gb"): {PeakFraction: 0.8115, Attention: 1.018},
			StackKey(StackLLMFoundry, "h100"):      {PeakFraction: 0.6547, Attention: 1.718},
			StackKey(StackMegatron, "a100-80gb"):   {PeakFraction: 0.9471, Attention: 2.462},
		},
		HiddenHalf: 595.8,    // h₀
		TokensHalf: 1134,     // x₀
		Latency:    4.666e-4, // α, seconds
		Overlap:    0.8445,   // ω
	}
}

// FitRows returns the measurements the calibration is fitted on: the
// rows flagged Fit that Screen does not set aside.
func FitRows(ms []Measurement) []Measurement {
	bad := Screen(ms)
	var out []Measurement
	for i, m := range ms {
		if m.Fit && bad[i] == "" {
			out = append(out, m)
		}
	}
	return out
}
