// Package kv is the one parser of key=value settings written on a command
// line or in a source's name: a policy's or autoscaler's --policy-opt
// items, a generated workload's description ("generate:jobs=100,seed=3"),
// a mapped trace's column mapping ("submit=ts,gpus=n"). Keys and values
// are trimmed of spaces; what a key means, and which keys exist, is the
// caller's.
package kv

import (
	"fmt"
	"strings"
)

// Pair is one key=value item.
type Pair struct {
	Key, Value string
}

// Error is an item that is not key=value (no "=", or an empty key), or a
// key given twice in a list that allows each key once.
type Error struct {
	// Item is the item as written; Key, for a key given twice, the key.
	Item, Key string
}

func (e *Error) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("%s given twice", e.Key)
	}
	return fmt.Sprintf("%q is not key=value", e.Item)
}

// Cut reads one item "key=value", split at its first "=" (a value may
// hold more), key and value trimmed; an item without "=" or with an empty
// key is an *Error.
func Cut(item string) (Pair, error) {
	k, v, ok := strings.Cut(item, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if !ok || k == "" {
		return Pair{}, &Error{Item: item}
	}
	return Pair{Key: k, Value: v}, nil
}

// Items reads each of items with Cut, in order.
func Items(items []string) ([]Pair, error) {
	out := make([]Pair, 0, len(items))
	for _, it := range items {
		p, err := Cut(it)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// List reads a comma-separated list of key=value items ("jobs=10,seed=3"),
// in order; blank items (a trailing comma) are skipped, but a list of
// blank items only (",,") is an *Error: it names no key, where an empty
// list says "the defaults" plainly. With unique, a key given twice is an
// *Error (else each item stands, the caller decides whether the last one
// wins).
func List(s string, unique bool) ([]Pair, error) {
	var out []Pair
	seen := map[string]bool{}
	for _, it := range strings.Split(s, ",") {
		if strings.TrimSpace(it) == "" {
			continue
		}
		p, err := Cut(it)
		if err != nil {
			return nil, err
		}
		if unique && seen[p.Key] {
			return nil, &Error{Item: it, Key: p.Key}
		}
		seen[p.Key] = true
		out = append(out, p)
	}
	if len(out) == 0 && strings.TrimSpace(s) != "" {
		return nil, &Error{Item: s}
	}
	return out, nil
}
