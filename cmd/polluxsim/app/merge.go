package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/spf13/cobra"
)

func newMergeCmd(ext *extensions.Extensions) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge --out DIR SHARD_DIR...",
		Short: "Join the output folders of a sharded sweep",
		Long: `merge joins the output folders of the shards of one sweep ("sweep --shard i/n"):
it copies every stored run into DIR/cells and rebuilds DIR/results.parquet and
DIR/summary.json, which are then the same as those of one unsharded sweep. The
shards must have run the same experiment spec; a run found in several folders must
have the same inputs in each. DIR may be one of the shard folders. Runs that no
folder has are listed; rerun their shard (it resumes) and merge again.`,
		Example: `  polluxsim merge --out out/fig8a out/fig8a-0 out/fig8a-1 out/fig8a-2`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			if out == "" {
				return errors.New("--out DIR is required")
			}
			for _, d := range dirs {
				// DIR may be a shard, not a folder inside one (--out SHARD/cells
				// wrote into the shard's cells).
				if within(out, d) && resolved(out) != resolved(d) {
					return fmt.Errorf("--out %s is inside %s, one of the folders merged: write to a folder of its own (or to %s itself)", out, d, d)
				}
			}
			rep, err := sweep.Merge(ext, out, dirs)
			if err != nil {
				return err
			}
			printSkipped(cmd.ErrOrStderr(), cmd.Root().Name(), rep.Experiment)
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "merged %d folders: %d of %d runs\n", len(dirs), rep.Runs, rep.Summary.ExpectedRuns)
			if len(rep.Missing) > 0 {
				fmt.Fprintf(w, "missing %d runs: %s\n", len(rep.Missing), abbreviate(rep.Missing, 12))
			}
			if err := writeSweepTables(w, rep.Summary); err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "wrote %s\n", strings.Join(sweep.SweepOutputs(out), ", "))
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merged output folder (required)")
	return cmd
}

// abbreviate joins at most n items, saying how many more there are.
func abbreviate(items []string, n int) string {
	if len(items) <= n {
		return fmt.Sprint(items)
	}
	return fmt.Sprintf("%v and %d more", items[:n], len(items)-n)
}
