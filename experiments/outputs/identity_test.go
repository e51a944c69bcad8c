package outputs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/version"
)

// TestRunHashRecipes pins each identity's recipe to the one stored runs
// were made with (written out here as it was before it had one home):
// a sweep resumes its stored runs by these values, so they must not move.
func TestRunHashRecipes(t *testing.T) {
	spec := runspec.DefaultSpec("tiresias")
	settings, _ := json.Marshal(spec)
	wl := []byte("name,time,application\nj0,0,cifar10\n")
	id := Identity{Workload: wl, ProfilesDigest: "embedded-digest", InputsHash: "abc", Settings: spec,
		Experiment: "ci", ExperimentVersion: 3, Run: "tiresias.w1", Config: "tuned", Load: 1.5, Jobs: 160,
		ProfilesID: "embedded", Code: "0.1.0 binary 0123456789ab"}
	for _, c := range []struct {
		p    IdentityPurpose
		want string
	}{
		{InputsIdentity, digest.Parts(wl, []byte("embedded-digest"), []byte(version.Release))},
		{PlainRunIdentity, digest.Parts([]byte("abc"), settings)},
		{SweepRunIdentity, digest.Parts([]byte("ci"), []byte(strconv.Itoa(3)), []byte("tiresias.w1"), settings,
			[]byte(fmt.Sprintf("%s|%g|%d", "tuned", 1.5, 160)), wl, []byte("embedded"), []byte("0.1.0 binary 0123456789ab"))},
	} {
		if got := RunHash(c.p, id); got != c.want {
			t.Errorf("purpose %d: %s, want %s", c.p, got, c.want)
		}
	}
	if got := PlainRunKey(spec, RunMeta{InputsHash: "abc"}).ID; got != RunID(digest.Parts([]byte("abc"), settings)) || len(got) != RunIDLen {
		t.Errorf("PlainRunKey's run_id %s", got)
	}
	// A fixed value (main's at 16f3f37), so that a change of the hash or
	// of RunSpec's JSON, which every run_id hashes, shows too.
	if got := RunHash(PlainRunIdentity, Identity{InputsHash: "abc", Settings: runspec.RunSpec{}}); got[:16] != "33aaae6793d3663f" {
		t.Errorf("the plain run identity of a fixed input moved: %s", got)
	}
}

// TestRunHashPolicyCode: a policy's code outside the binary
// (Identity.PolicyCode) is part of the plain and the sweep run's identity
// when it is set, and of neither identity when it is not (the recipes
// above), so editing an external policy's script changes its run_id.
func TestRunHashPolicyCode(t *testing.T) {
	spec := runspec.DefaultSpec("external")
	id := Identity{InputsHash: "abc", Settings: spec, Experiment: "ci", Run: "x.w1", Workload: []byte("w"), Code: "c"}
	for _, p := range []IdentityPurpose{PlainRunIdentity, SweepRunIdentity} {
		plain := RunHash(p, id)
		a, b := id, id
		a.PolicyCode, b.PolicyCode = "digest-a", "digest-b"
		if ha, hb := RunHash(p, a), RunHash(p, b); ha == plain || hb == plain || ha == hb {
			t.Errorf("purpose %d: hashes without code, with code a, with code b: %s %s %s, want three", p, plain, ha, hb)
		}
	}
	meta := RunMeta{InputsHash: "abc"}
	before := PlainRunKey(spec, meta).ID
	meta.PolicyCode = "digest-a"
	if PlainRunKey(spec, meta).ID == before {
		t.Error("PlainRunKey ignores RunMeta.PolicyCode")
	}
}

// A plain run's run_id covers the content of the fault log it replays
// (the settings name only its path): the same path with other content is
// another run_id; a run without a log keeps the identity it always had.
func TestPlainRunIDCoversFaultLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "f.csv")
	meta := RunMeta{Version: "v", InputsHash: "h"}
	spec := runspec.DefaultSpec("fifo")
	plain := PlainRunKey(spec, meta).ID
	if want := RunID(RunHash(PlainRunIdentity, Identity{InputsHash: "h", Settings: spec})); plain != want {
		t.Errorf("a run without a fault log: run_id %s, want %s as before", plain, want)
	}
	spec.Failures = log + ",ckpt=600"
	var ids []string
	for _, body := range []string{"time,node,duration\n10,0,5\n", "time,node,duration\n10,0,6\n"} {
		if err := os.WriteFile(log, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, PlainRunKey(spec, meta).ID)
	}
	if ids[0] == ids[1] {
		t.Errorf("an edited fault log keeps run_id %s", ids[0])
	}
}
