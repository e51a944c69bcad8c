package sim

import (
	"regexp"
)

// The figures of a Summary that are null in JSON when no job has the ρ
// they summarise (Summary.NoFairness, NoFairnessEqualShare): they were
// written as 0, which reads as perfectly fair.
var (
	fairnessZero           = regexp.MustCompile(`("(?:avg_fairness_rho|p99_fairness_rho|frac_rho_above_1)":\s*)0(\s*[,}])`)
	fairnessEqualShareZero = regexp.MustCompile(`("(?:avg_fairness_rho_equal_share|p99_fairness_rho_equal_share|frac_rho_equal_share_above_1)":\s*)0(\s*[,}])`)
)

// NullFairness rewrites the JSON encoding of s (or of a value holding it
// and no other such keys) with its fairness figures null when no job has
// a ρ (an equal-share ρ). The figures read back as 0; NoFairness is
// derived from the jobs (HasFairness).
func (s Summary) NullFairness(data []byte) []byte {
	if s.NoFairness {
		data = fairnessZero.ReplaceAll(data, []byte("${1}null${2}"))
	}
	if s.NoFairnessEqualShare {
		data = fairnessEqualShareZero.ReplaceAll(data, []byte("${1}null${2}"))
	}
	return data
}

// SetNoFairness sets s's NoFairness and NoFairnessEqualShare from jobs (a
// summary read back from JSON, where they are not stored).
func (s *Summary) SetNoFairness(jobs []JobResult) {
	s.NoFairness, s.NoFairnessEqualShare = true, true
	for _, j := range jobs {
		if j.ExclusiveJCT > 0 {
			s.NoFairness = false
		}
		if j.EqualShareJCT > 0 {
			s.NoFairnessEqualShare = false
		}
	}
}
