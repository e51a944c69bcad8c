package service

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// TestCheckAnswer: the answers of protocol version 2's facts are checked
// as the older ones are: a step's sync part only for step_time, finite,
// not negative and not longer than the step; a completion epoch an
// integer.
func TestCheckAnswer(t *testing.T) {
	step := &protocol.Query{Fact: protocol.FactStepTime}
	done := &protocol.Query{Fact: protocol.FactCompletionEpoch}
	iter := &protocol.Query{Fact: protocol.FactIterTime}
	ans := func(v, sync float64) protocol.Answer {
		return protocol.Answer{Type: protocol.TypeAnswer, Value: v, Sync: sync, OK: true}
	}
	for _, tc := range []struct {
		q    *protocol.Query
		a    protocol.Answer
		want string // "" accepted
	}{
		{step, ans(0.5, 0.125), ""},
		{step, ans(0.5, 0), ""},
		{step, ans(0.5, 0.5), ""},
		{step, ans(0.5, 0.75), "answers[0].sync: the sync part 0.75 of a step of 0.5 s is longer than the step"},
		{step, ans(0.5, -1), "answers[0].sync: want a finite number ≥ 0"},
		{step, ans(0.5, math.NaN()), "answers[0].sync: want a finite number ≥ 0"},
		{iter, ans(0.5, 0.125), "answers[0].sync: only step_time answers a sync time"},
		{done, ans(9, 0), ""},
		{done, ans(9.5, 0), "answers[0].value: completion_epoch must be an integer, got 9.5"},
	} {
		err := checkAnswer(tc.q, tc.a)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %+v: %v", tc.q.Fact, tc.a, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s %+v: error %v, want %q", tc.q.Fact, tc.a, err, tc.want)
		}
	}
}
