package llm

// Fitted is the calibration Fit returns on the fitting subset of the
// embedded measurements (FitRows), rounded to four significant digits; a
// test refits and checks it.
func Fitted() Calibration {
	return Calibration{
		Stacks: map[string]StackCalibration{
			StackKey(StackLLMFoundry, "a100-40gb"): {PeakFraction: 0.7691, Attention: 0.9023},
			StackKey(StackLLMFoundry, "a100-80gb"): {PeakFraction: 0.8257, Attention: 1.021},
			StackKey(StackLLMFoundry, "h100"):      {PeakFraction: 0.6656, Attention: 1.738},
			StackKey(StackMegatron, "a100-80gb"):   {PeakFraction: 0.8947, Attention: 2.294},
		},
		HiddenHalf: 632.8,    // h₀
		TokensHalf: 969.2,    // x₀
		Latency:    3.485e-6, // α, seconds
		Overlap:    0.4641,   // ω
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
