package sim

import "testing"

// TallyDeadlines on every kind of job once: met (early and exactly on
// time), late, declined with and without a deadline, best-effort; the
// ratio counts a declined job with a deadline as missed.
func TestTallyDeadlines(t *testing.T) {
	jobs := []JobResult{
		{Name: "early", Deadline: 100, Finish: 90},
		{Name: "on-time", Deadline: 100, Finish: 100},
		{Name: "late", Deadline: 100, Finish: 100.5},
		{Name: "declined", Deadline: 100, Declined: "no"},
		{Name: "declined-best-effort", Declined: "no"},
		{Name: "best-effort", Finish: 1e6},
	}
	got := TallyDeadlines(jobs)
	want := Deadlines{With: 4, Met: 2, Late: 1, Declined: 1, DeclinedAll: 2}
	if got != want {
		t.Errorf("TallyDeadlines = %+v, want %+v", got, want)
	}
	if r, ok := got.Ratio(); !ok || r != 0.5 {
		t.Errorf("Ratio = %v, %v; want 0.5 (2 of 4)", r, ok)
	}
	if _, ok := TallyDeadlines(jobs[4:]).Ratio(); ok {
		t.Error("a run without deadlines has a ratio")
	}
}
