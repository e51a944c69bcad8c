package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/experiments/report"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/fserr"
)

func newReportCmd(ext *extensions.Extensions) *cobra.Command {
	var in, out string
	var o output
	cmd := &cobra.Command{
		Use:   "report --in DIR --out FILE.html",
		Short: "Write a sweep's report as one self-contained HTML page",
		Long: `report reads a sweep's output folder and writes one HTML page that needs nothing
else: the provenance of the numbers (polluxsim version, profiles, workloads, every
cell's settings, and whether the published reference numbers were measured on the
same inputs), every metric per cell with its 95% confidence interval and the
reference numbers, the paired ratios, and every figure of the experiment as
inline SVG. -o json prints {"wrote": [FILE], "experiment", "runs", "missing"}:
the stored runs the page was made of and the ones it lacks.`,
		Example: `  polluxsim report --in out/table2 --out out/table2/report.html`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if in == "" || out == "" {
				return errors.New("report needs --in DIR (a sweep's output) and --out FILE")
			}
			if out == "-" { // it made a file named "-"
				return errors.New("--out -: report writes an HTML file, not to standard output: name a file")
			}
			if err := checkReportOut(out, in); err != nil {
				return err
			}
			if err := needSweepFolder("report", in); err != nil {
				return err
			}
			exp, runs, missing, err := sweep.OpenSweep(in, ext)
			if err != nil {
				return err
			}
			printSkipped(cmd.ErrOrStderr(), cmd.Root().Name(), exp)
			if len(runs) == 0 {
				return fmt.Errorf("%s has no stored runs of experiment %s", in, exp.Name)
			}
			if err := atomicfile.Write(out, func(w io.Writer) error {
				return report.Report(w, ext.MetricSet(), exp, runs, missing)
			}); err != nil {
				return fmt.Errorf("--out %s: %w", out, fserr.Cause(err))
			}
			return o.printWrote(cmd.OutOrStdout(), reportWrote{wroteFiles{[]string{out}}, exp.Name, len(runs), len(missing)}, out)
		},
	}
	cmd.Flags().StringVar(&in, "in", "", "a sweep's output folder")
	cmd.Flags().StringVar(&out, "out", "", "the HTML file to write")
	o.register(cmd.Flags())
	return cmd
}

// reportWrote is report's -o json: the page and the runs it was made of.
type reportWrote struct {
	wroteFiles
	Experiment string `json:"experiment"`
	Runs       int    `json:"runs"`    // stored runs read
	Missing    int    `json:"missing"` // runs of the experiment not stored (a partial sweep)
}
