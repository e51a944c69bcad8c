package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// The kinds of output folder an --in names.
const (
	folderOther = iota
	folderRun   // a run's: summary.json and jobs.parquet, no experiment.json
	folderSweep // a sweep's: experiment.json
)

// folderKind tells a sweep's output folder from a run's.
func folderKind(dir string) int {
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case has(sweep.ExperimentFile):
		return folderSweep
	case has(sweep.SummaryFile) && has(sweep.JobsFile):
		return folderRun
	}
	return folderOther
}

// needSweepFolder refuses a run's folder given to a command that reads a
// sweep's (plot, report, regress), saying which commands fit it.
func needSweepFolder(command, dir string) error {
	if folderKind(dir) == folderRun {
		return fmt.Errorf("--in %s is a run's output folder (polluxsim run), not a sweep's: %s reads a sweep's folder (polluxsim sweep --out DIR); for a run, polluxsim plot fig6 --in %s draws its co-adaptation figure and its tables are documented in docs/outputs.md", dir, command, dir)
	}
	return nil
}

// needRunFolder refuses a sweep's folder given to a run figure (plot fig6), saying which
// commands fit it.
func needRunFolder(command, dir string) error {
	if folderKind(dir) == folderSweep {
		return fmt.Errorf("--in %s is a sweep's output folder, not a run's: %s draws one run's tables (polluxsim run --out DIR); for a sweep, polluxsim plot --in %s draws its figures and polluxsim report --in %s --out FILE.html writes its report", dir, command, dir, dir)
	}
	return nil
}
