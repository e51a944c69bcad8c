package service

import (
	"encoding/json"
	"unicode"
	"unicode/utf8"
)

// checkName checks a name the service keeps and may write back: a node's,
// a job's, an application, a GPU type. A valid name is 1 to maxNameLen
// bytes of UTF-8 whose every character is printable (unicode.IsPrint:
// letters, marks, numbers, punctuation, symbols and the ASCII space): no
// control characters, no formatting characters (the bidirectional
// overrides among them), no other spaces.
func checkName(field, s string) error {
	if s == "" || len(s) > maxNameLen {
		return errorf("%s: want 1 to %d bytes, got %d", field, maxNameLen, len(s))
	}
	if !utf8.ValidString(s) {
		return errorf("%s: not valid UTF-8", field)
	}
	for i, c := range s {
		if !unicode.IsPrint(c) {
			return errorf("%s: character %U at byte %d is not printable (control, formatting or a space other than U+0020)", field, c, i)
		}
	}
	return nil
}

// answerOverhead bounds the bytes of a round's answer beyond the names
// in it: per job, its object's keys and numbers; per answer, its frame.
const (
	answerJobOverhead = len(`{"name":,"allocation":[],"config":{"local_bsz":,"accum_steps":,"batch_size":}},`) + 3*20
	answerOverhead    = len(`{"jobs":[],"desired_nodes":}`) + 20 + 1
)

// answerBound is the largest answer round r can have: every job's name
// and configuration, and every GPU of every node given to one replica,
// written as its node's name (no node is allocated beyond its GPUs).
func answerBound(r *round) int64 {
	b := int64(answerOverhead)
	for n, name := range r.nodes {
		b += int64(r.full.NodeGPUs(n)) * int64(jsonLen(name)+1)
	}
	for i := range r.out {
		b += int64(jsonLen(r.out[i].job.Name) + answerJobOverhead)
	}
	return b
}

// jsonLen is the length of s written as a JSON string by encoding/json.
func jsonLen(s string) int {
	data, err := json.Marshal(s)
	if err != nil {
		return 6*len(s) + 2 // every byte escaped as \u00XX, and the quotes
	}
	return len(data)
}

// checkJobGPUs bounds what a job may ask for by the GPUs a round may have.
func checkJobGPUs(f string, w *Job, lim Limits) error {
	for _, c := range []struct {
		name string
		v    int
	}{{"request_gpus", w.RequestGPUs}, {"max_replicas", w.MaxReplicas}, {"min_replicas", w.MinReplicas}, {"min_gpus", w.MinGPUs}} {
		if c.v > lim.MaxGPUs {
			return errorf("%s.%s: %d GPUs, more than the service's limit of %d GPUs in a round", f, c.name, c.v, lim.MaxGPUs)
		}
	}
	return nil
}
