package experiments

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// specFS holds the named experiments (`polluxsim sweep --experiment NAME`).
//
//go:embed specs/*.json specs/faults/*.csv
var specFS embed.FS

// ExperimentNames lists the embedded experiments, sorted.
func ExperimentNames() []string {
	entries, _ := fs.ReadDir(specFS, "specs")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
