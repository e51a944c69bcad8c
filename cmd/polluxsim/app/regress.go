package app

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/spf13/cobra"
)

func newRegressCmd(ext *extensions.Extensions) *cobra.Command {
	var baseline, in string
	var update bool
	cmd := &cobra.Command{
		Use:   "regress --baseline FILE --in DIR",
		Short: "Check a sweep's results against a baseline; non-zero exit when a cell drifts",
		Long: `regress compares the mean over workloads of each metric a baseline lists
(experiments/baselines/NAME.json: per cell the expected value and a relative
tolerance) with the runs stored in a sweep's output folder. It prints every check
and exits non-zero, naming the cells, when one drifts beyond its tolerance, has no
results, or the results were made with other profiles than the baseline's.

--update rewrites the baseline's expected values from the results (keeping its
cells and tolerances; a new file gets avg_jct_s of every cell at ±2%). A folder
that lacks some of the experiment's runs (an unfinished sweep, one shard) is
refused either way.`,
		Example: `  polluxsim sweep --experiment ci --out out/ci --no-timing
  polluxsim regress --baseline experiments/baselines/ci.json --in out/ci`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if baseline == "" || in == "" {
				return errors.New("regress needs --baseline FILE and --in DIR (a sweep's output)")
			}
			if err := needSweepFolder("regress", in); err != nil {
				return err
			}
			exp, runs, missing, err := sweep.OpenSweep(in, ext)
			if err != nil {
				return err
			}
			printSkipped(cmd.ErrOrStderr(), cmd.Root().Name(), exp)
			// Means over some of the workloads would drift (or, with
			// --update, become the baseline) for want of the others.
			if len(missing) > 0 {
				return fmt.Errorf("%s lacks %d of the %d runs of experiment %s (the first: %s): finish the sweep or merge its shards before regress",
					in, len(missing), len(missing)+len(runs), exp.Name, missing[0])
			}
			sum := sweep.Summarize(ext.MetricSet(), exp, runs, missing)
			ids := map[string]bool{}
			for _, r := range runs {
				ids[r.ProfilesID] = true
			}
			idList := make([]string, 0, len(ids))
			for id := range ids {
				idList = append(idList, id)
			}
			sort.Strings(idList)
			if update {
				return updateBaseline(cmd, ext.MetricSet(), baseline, sum, idList)
			}
			b, err := sweep.ReadBaseline(ext.MetricSet(), baseline)
			if err != nil {
				return err
			}
			checks, err := sweep.Regress(ext.MetricSet(), b, sum, idList)
			if err != nil {
				return err
			}
			if err := writeChecks(cmd, checks); err != nil {
				return err
			}
			if failed := sweep.Failed(checks); len(failed) > 0 {
				return fmt.Errorf("%d of %d baseline numbers of %s drifted beyond tolerance:\n  %s",
					len(failed), len(checks), baseline, strings.Join(failed, "\n  "))
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "ok: all %d baseline numbers of %s within tolerance\n", len(checks), baseline)
			return err
		},
	}
	cmd.Flags().StringVar(&baseline, "baseline", "", "baseline file (experiments/baselines/NAME.json)")
	cmd.Flags().StringVar(&in, "in", "", "a sweep's output folder")
	cmd.Flags().BoolVar(&update, "update", false, "rewrite the baseline's expected values from the results")
	return cmd
}

func writeChecks(cmd *cobra.Command, checks []sweep.Check) error {
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tmetric\texpected\tgot\tdrift\ttolerance\t")
	for _, c := range checks {
		status, got, drift := "ok", fmt.Sprintf("%.6g", c.Got), fmt.Sprintf("%+.2f%%", 100*c.Drift)
		tol := fmt.Sprintf("±%.2f%%", 100*c.Tolerance)
		if c.Expected == 0 { // the drift is absolute: no percentage of 0
			drift, tol = fmt.Sprintf("%+.6g", c.Drift), fmt.Sprintf("±%.6g", c.Tolerance)
		}
		switch {
		case c.Missing:
			status, got, drift = "MISSING", "-", "-"
		case !c.OK:
			status = "DRIFT"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.6g\t%s\t%s\t%s\t%s\n", c.Cell, c.Metric, c.Expected, got, drift, tol, status)
	}
	return tw.Flush()
}

func updateBaseline(cmd *cobra.Command, ms outputs.Metrics, path string, sum *sweep.SweepSummary, ids []string) error {
	if len(ids) != 1 {
		return fmt.Errorf("the results were made with %d different profile sets; a baseline needs one", len(ids))
	}
	var old *sweep.Baseline
	if _, err := os.Stat(path); err == nil {
		if old, err = sweep.ReadBaseline(ms, path); err != nil {
			return err
		}
	}
	b, err := sweep.UpdateBaseline(old, sum, ids[0])
	if err != nil {
		return err
	}
	if err := sweep.WriteBaseline(path, b); err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d numbers\n", path, len(b.Cells))
	return err
}
