// Package registry is the name → registration table behind every registry
// of extensions (policies, autoscalers, trace formats, workload sources,
// figure kinds): each a value a binary or a test builds, safe to read
// concurrently.
package registry

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/polluxsim/polluxsim/internal/suggest"
)

// Registry maps names to registrations of one kind (e.g. "policy").
type Registry[T any] struct {
	kind string
	mu   sync.RWMutex
	m    map[string]T
}

// New returns an empty registry; kind names its entries in messages.
func New[T any](kind string) *Registry[T] { return &Registry[T]{kind: kind, m: map[string]T{}} }

// CheckName reports whether name is lower-case letters, digits and '-'.
func CheckName(name string) bool {
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// Add registers v under name; a name already taken is an error.
func (r *Registry[T]) Add(name string, v T) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		return fmt.Errorf("%s %q registered twice", r.kind, name)
	}
	r.m[name] = v
	return nil
}

// Lookup returns the registration called name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[name]
	return v, ok
}

// Names lists the registered names in alphabetical order.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All lists the registrations in the alphabetical order of their names.
func (r *Registry[T]) All() []T {
	names := r.Names()
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, 0, len(names))
	for _, n := range names {
		if v, ok := r.m[n]; ok {
			out = append(out, v)
		}
	}
	return out
}

// Get returns the registration called name, or an error listing the known
// names, the nearest first: unknown policy "polux" (did you mean pollux?
// known: ...).
func (r *Registry[T]) Get(name string) (T, error) {
	v, ok := r.Lookup(name)
	if !ok {
		return v, fmt.Errorf("unknown %s %q (%s)", r.kind, name, Known(name, r.Names()))
	}
	return v, nil
}

// Known is the parenthesis of an unknown name's error: the names near it
// (suggest.Hint), then all of them: "did you mean pollux? known: fifo,
// pollux, tiresias".
func Known(name string, names []string) string {
	known := "known: " + strings.Join(names, ", ")
	if h := suggest.Hint(name, names, nil); h != "" {
		return h + " " + known
	}
	return known
}
