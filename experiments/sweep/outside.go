package sweep

import (
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/profiles"
)

// CheckOutsideInputs refuses a sweep's output folder out inside one of its
// inputs: the profiles it reads (profilesRef, a folder or file; not a
// built-in set's name, which names no file) and its workloads folder (not
// "" or GeneratedWorkloads). Sweep checks it (SweepOptions.ProfilesPath
// and Workloads); the command line calls it before reading anything.
func CheckOutsideInputs(out, profilesRef, workloads string) error {
	if _, named := profiles.Named(profilesRef); named {
		profilesRef = ""
	}
	if workloads == GeneratedWorkloads {
		workloads = ""
	}
	return runner.CheckOutside(out, runner.Input{Name: "--profiles", Path: profilesRef}, runner.Input{Name: "--workloads", Path: workloads})
}
