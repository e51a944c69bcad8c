package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/version"
)

// The identity of a run, in one home. A run has one identity hash per
// purpose, each over the inputs that purpose needs, all through RunHash
// (internal/digest's length-prefixed SHA-256); its run_id (the run
// columns' run_id, summary.json's run_id) is the first RunIDLen hex digits
// of the hash of its purpose (RunID). The values are those every stored
// run was made with: a sweep resumes by them, so they never change.

// RunIDLen is the number of hex digits of a run_id.
const RunIDLen = 16

// IdentityPurpose names what a run's identity hash is for.
type IdentityPurpose int

const (
	// InputsIdentity identifies what a run reads: the workload as
	// simulated (in the workload CSV format), the profiles' digest and the
	// release (version.Release). It is RunMeta.InputsHash (summary.json's
	// inputs_hash, the tables' polluxsim.inputs_hash), and part of a plain
	// run's identity.
	InputsIdentity IdentityPurpose = iota
	// PlainRunIdentity identifies a `polluxsim run` (runner.Run): the
	// inputs' hash, every setting (the RunSpec's JSON) and the policy's
	// code outside the binary (PolicyCode) if any. The same run
	// made by another build of the same release has the same run_id.
	PlainRunIdentity
	// SweepRunIdentity identifies a sweep's stored run (RunResult.Hash;
	// its run_id is the first RunIDLen digits): the experiment, its
	// version, the run's name, its settings, the cell's configuration,
	// load and jobs, the workload as simulated, the profiles' identity and
	// the code that made it, the binary's digest included
	// (version.Code), and the policy's code outside the binary
	// (PolicyCode: an external policy's script) if any: a sweep redoes a
	// stored run whose hash differs, so a rebuilt binary, or an edited
	// script, redoes its runs rather than mixing two codes' results.
	SweepRunIdentity
)

// Identity holds what a run's identity hashes; each purpose reads its
// own fields (see IdentityPurpose).
type Identity struct {
	// Workload is the workload as simulated, in the workload CSV format
	// (traces.Write). Inputs, sweep run.
	Workload []byte
	// ProfilesDigest is the profiles' content digest (profiles.Set.Digest).
	// Inputs.
	ProfilesDigest string
	// InputsHash is the InputsIdentity hash. Plain run.
	InputsHash string
	// Settings are the run's settings. Plain run, sweep run.
	Settings runspec.RunSpec
	// Experiment, ExperimentVersion and Run name a sweep's run; Config,
	// Load and Jobs describe its cell; ProfilesID identifies the
	// profiles (a name or a digest); Code is the code that made the run
	// (version.Code). Sweep run.
	Experiment        string
	ExperimentVersion int
	Run               string
	Config            string
	Load              float64
	Jobs              int
	ProfilesID        string
	Code              string
	// PolicyCode is the digest of the policy's code outside the binary
	// (policies.Registry.CodeDigest: an external policy's script), ""
	// for a policy whose code is the binary's. Plain run, sweep run: a
	// part of the hash only when it is set, so the identity of every run
	// of a built-in policy is what it always was.
	PolicyCode string
	// FaultLog is the content digest of the fault log the run replays
	// (runspec.RunSpec.FaultLog; the settings name it only by its path),
	// "" for none. Plain run, sweep run: a part of the hash only when it
	// is set, as PolicyCode.
	FaultLog string
}

// RunHash is the identity hash (64 hex digits) of purpose p over id's
// fields for it.
func RunHash(p IdentityPurpose, id Identity) string {
	switch p {
	case InputsIdentity:
		return digest.Parts(id.Workload, []byte(id.ProfilesDigest), []byte(version.Release))
	case PlainRunIdentity:
		settings, _ := json.Marshal(id.Settings)
		return digest.Parts(withPolicyCode(id, []byte(id.InputsHash), settings)...)
	case SweepRunIdentity:
		settings, _ := json.Marshal(id.Settings)
		return digest.Parts(withPolicyCode(id, []byte(id.Experiment), []byte(strconv.Itoa(id.ExperimentVersion)), []byte(id.Run), settings,
			[]byte(fmt.Sprintf("%s|%g|%d", id.Config, id.Load, id.Jobs)), id.Workload,
			[]byte(id.ProfilesID), []byte(id.Code))...)
	}
	panic(fmt.Sprintf("outputs: unknown identity purpose %d", p))
}

// withPolicyCode appends id.PolicyCode and id.FaultLog to parts, each
// when it is set.
func withPolicyCode(id Identity, parts ...[]byte) [][]byte {
	if id.PolicyCode != "" {
		parts = append(parts, []byte("policy_code"), []byte(id.PolicyCode))
	}
	if id.FaultLog != "" {
		parts = append(parts, []byte("fault_log"), []byte(id.FaultLog))
	}
	return parts
}

// RunID is the run_id of a run whose identity hash is hash: its first
// RunIDLen hex digits.
func RunID(hash string) string {
	if len(hash) > RunIDLen {
		return hash[:RunIDLen]
	}
	return hash
}

// WorkloadDigest identifies a workload's content: the first 16 hex digits
// of the SHA-256 of the workload as simulated in the workload CSV format
// (traces.Write), whatever source it came from.
func WorkloadDigest(csv []byte) string {
	sum := sha256.Sum256(csv)
	return hex.EncodeToString(sum[:])[:RunIDLen]
}
