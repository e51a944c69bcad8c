package outputs

import (
	"encoding/json"
	"fmt"
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
