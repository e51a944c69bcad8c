package traces

import (
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/adaptdl"
)

// Names of the embedded reference workload sets, as written before the
// workload number: paper:N is workloads/workload-N.csv of the Pollux
// artifact (TunedJobs configurations, 1.0× load) and paper-realistic:N is
// workloads-realistic/workload-N.csv (the same jobs with user
// configurations), N = 1 … PaperWorkloads.
const (
	PaperTuned     = "paper"
	PaperRealistic = "paper-realistic"
)

// PaperWorkloads is the number of workloads in each embedded set.
const PaperWorkloads = adaptdl.Workloads

// PaperName returns the name of embedded reference workload n of the
// configuration config (ConfigTuned or ConfigRealistic), e.g. "paper:3".
func PaperName(config string, n int) string {
	set := PaperTuned
	if config == ConfigRealistic {
		set = PaperRealistic
	}
	return set + ":" + strconv.Itoa(n)
}

// IsPaperName reports whether name is spelled as an embedded reference
// workload (paper:… or paper-realistic:…), valid or not.
func IsPaperName(name string) bool {
	return strings.HasPrefix(name, PaperTuned+":") || strings.HasPrefix(name, PaperRealistic+":")
}

// paperFile returns the embedded file of a reference workload name.
func paperFile(name string) (string, error) {
	set, num, _ := strings.Cut(name, ":")
	folder := adaptdl.WorkloadsTuned
	if set == PaperRealistic {
		folder = adaptdl.WorkloadsRealistic
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || n > PaperWorkloads || strings.HasPrefix(num, "+") {
		return "", fmt.Errorf("%s: no such reference workload (the embedded ones are %s:1 … %s:%d and %s:1 … %s:%d)",
			name, PaperTuned, PaperTuned, PaperWorkloads, PaperRealistic, PaperRealistic, PaperWorkloads)
	}
	return fmt.Sprintf("%s/workload-%d.csv", folder, n), nil
}

// ReadPaper reads an embedded reference workload by name (see PaperTuned
// and PaperRealistic): the unchanged workload files of the Pollux artifact
// (petuum/adaptdl, branch osdi21-artifact, simulator/workloads/ and
// workloads-realistic/). The Workload's Source is the name.
func ReadPaper(name string, opts ReadOptions) (*Workload, []string, error) {
	if !IsPaperName(name) {
		return nil, nil, fmt.Errorf("%s: not a reference workload name (want %s:N or %s:N)", name, PaperTuned, PaperRealistic)
	}
	file, err := paperFile(name)
	if err != nil {
		return nil, nil, err
	}
	data, err := fs.ReadFile(adaptdl.FS(), file)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return Parse(bytes.NewReader(data), name, opts)
}

// ReadWorkload reads the workload a --workload argument names: an embedded
// reference workload (paper:N, paper-realistic:N; see ReadPaper) or a
// workload CSV file (see ReadFile). A file whose name looks like a
// reference workload is read as a file when written with a folder, e.g.
// ./paper:1.
func ReadWorkload(name string, opts ReadOptions) (*Workload, []string, error) {
	if IsPaperName(name) {
		return ReadPaper(name, opts)
	}
	return ReadFile(name, opts)
}
