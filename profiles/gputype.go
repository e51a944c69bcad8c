package profiles

import (
	"fmt"
	"sort"
	"strings"
)

// T4 is the GPU type of the unsuffixed reference tables (placements.csv,
// scalability.csv): the Pollux artifact measured NVIDIA T4 GPUs.
const T4 = "t4"

// gpuTypes maps every accepted GPU type name, canonical or the Sia
// artifact's file suffix, to the canonical name.
var gpuTypes = map[string]string{
	"t4": T4, "aws": T4,
	"v100": "v100", "azure": "v100",
	"a100": "a100", "dgx-ext": "a100",
	"rtx6000": "rtx6000", "quad": "rtx6000",
	"rtx2080ti": "rtx2080ti", "rtx": "rtx2080ti",
	// The LLM-era types of models/llm (the llm profile set runs on them).
	"h100": "h100", "a100-80gb": "a100-80gb", "a100-40gb": "a100-40gb",
}

// CanonicalType returns the canonical name of a GPU type given by its
// canonical name (t4, v100, a100, rtx6000, rtx2080ti; h100, a100-80gb,
// a100-40gb for the llm profile set) or by the Sia
// artifact's suffix (aws, azure, dgx-ext, quad, rtx), case-insensitively.
func CanonicalType(name string) (string, error) {
	if t, ok := gpuTypes[strings.ToLower(strings.TrimSpace(name))]; ok {
		return t, nil
	}
	return "", fmt.Errorf("unknown GPU type %q (known: %s)", name, strings.Join(TypeNames(), ", "))
}

// TypeNames lists the canonical GPU type names, sorted.
func TypeNames() []string {
	seen := map[string]bool{}
	var ts []string
	for _, t := range gpuTypes {
		if !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	sort.Strings(ts)
	return ts
}

// ForType returns the application's profile on GPU type t (canonical
// name): its per-type tables when it has them (ByType), itself for T4 when
// it is the unsuffixed T4 profile, or nil: the application cannot run on
// t.
func (a *App) ForType(t string) *App {
	if b, ok := a.ByType[t]; ok {
		return b
	}
	if t == T4 && a.Type == "" {
		return a
	}
	return nil
}

// Types lists the GPU types the application has tables for, sorted.
func (a *App) Types() []string {
	var ts []string
	for t := range a.ByType {
		ts = append(ts, t)
	}
	if a.Type == "" && a.ByType[T4] == nil {
		ts = append(ts, T4)
	}
	sort.Strings(ts)
	return ts
}
