package outputs

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/internal/parquettest"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
)

// tableRows flattens a table to one string per row (any chunking).
func tableRows(t *testing.T, tbl arrow.Table) []string {
	t.Helper()
	rows := make([]string, tbl.NumRows())
	for c := 0; c < int(tbl.NumCols()); c++ {
		r := 0
		for _, ch := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < ch.Len(); i++ {
				rows[r] += ch.ValueStr(i) + "\t"
				r++
			}
		}
	}
	return rows
}

// A rounds.parquet streamed in small row groups while the run goes holds
// the same rows, schema and metadata as one written from Result.Rounds; a
// run with no rounds writes no rounds.parquet; an aborted stream leaves
// nothing.
func TestRoundsStreamSameTable(t *testing.T) {
	set := profiles.Compact()
	w, err := runspec.GenerateWorkload(nil, set, 24, 3, "tuned", 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w.Jobs {
		w.Jobs[i].Replicas = min(w.Jobs[i].Replicas, 16)
	}
	spec := runspec.DefaultSpec("tiresias")
	spec.Nodes = 4
	meta := RunMeta{Version: "test", Seed: spec.Seed, InputsHash: digest.Parts([]byte("x"))}
	run := func(dir string, stream bool, rounds string) {
		spec := spec
		spec.Rounds = rounds
		p, err := known.Policies.Build(spec.Policy, spec.Options, spec.Env(1))
		if err != nil {
			t.Fatal(err)
		}
		cfg := spec.SimConfig()
		opt := OutputOptions{NoTiming: true}
		folder, err := OpenRunFolder(dir)
		if err != nil {
			t.Fatal(err)
		}
		if stream {
			if opt.Rounds, err = folder.StreamRounds(p.Name(), spec, meta, opt); err != nil {
				t.Fatal(err)
			}
			opt.Rounds.groupRows = 100
			cfg.RoundSink = opt.Rounds
		}
		res, err := sim.Run(cfg, set, w, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := folder.Write(res, spec, meta, opt); err != nil {
			t.Fatal(err)
		}
	}
	a, b := t.TempDir(), t.TempDir()
	run(a, false, "")
	run(b, true, "")
	ta := parquettest.ReadTable(t, filepath.Join(a, "rounds.parquet"))
	tb := parquettest.ReadTable(t, filepath.Join(b, "rounds.parquet"))
	if !ta.Schema().Equal(tb.Schema()) {
		t.Fatalf("schemas differ:\n%v\n%v", ta.Schema(), tb.Schema())
	}
	ra, rb := tableRows(t, ta), tableRows(t, tb)
	if len(ra) < 300 || !reflect.DeepEqual(ra, rb) {
		t.Errorf("streamed rows differ (%d vs %d rows)", len(ra), len(rb))
	}
	ents, _ := os.ReadDir(b)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
	// No rounds: no rounds.parquet, and an earlier one is removed.
	run(a, false, "none")
	if _, err := os.Stat(filepath.Join(a, "rounds.parquet")); !os.IsNotExist(err) {
		t.Errorf("rounds.parquet with --rounds none: %v", err)
	}
	// An aborted stream leaves no file.
	c := t.TempDir()
	folder, err := OpenRunFolder(c)
	if err != nil {
		t.Fatal(err)
	}
	s, err := folder.StreamRounds("x", spec, meta, OutputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.WriteRounds([]sim.RoundRecord{{Job: "j"}}); err != nil {
		t.Fatal(err)
	}
	s.Abort()
	if ents, _ := os.ReadDir(c); len(ents) != 0 {
		t.Errorf("aborted stream left %v", ents)
	}
}
