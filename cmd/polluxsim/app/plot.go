package app

import (
	"errors"
	"fmt"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/spf13/cobra"
)

func newPlotCmd(ext *extensions.Extensions) *cobra.Command {
	var in, out, size string
	var formats []string
	cmd := &cobra.Command{
		Use:   "plot --in DIR --out DIR",
		Short: "Draw a sweep's figures (PNG and SVG)",
		Long: `plot draws the figures an experiment lists from the runs stored in a sweep's
output folder, as PNG and SVG (or PDF, --format), page-wide or one paper column wide
(--size column), each with its legend below and a caption naming its inputs: distributions of job completion time and of
finish-time fairness per cell (paper Fig 7), GPUs allocated and average
statistical efficiency over time on one workload (paper Fig 5), and a metric
against a setting with 95% confidence intervals and the reference numbers dashed
(paper Fig 8a/b/c). Experiments without a plot list get the two distributions and
the timeline of all their cells.`,
		Example: `  polluxsim plot --in out/table2 --out out/table2/plots
  polluxsim plot --in out/fig8c --out paper/figs --size column --format pdf,svg`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return errors.New("plot needs --in DIR (a sweep's output) and --out DIR")
			}
			if err := needSweepFolder("plot", in); err != nil {
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
			if len(missing) > 0 {
				// Plotting what is there is useful (a sweep in progress),
				// but never silently: runs stored by another version or
				// with other settings do not count.
				fmt.Fprintf(cmd.ErrOrStderr(), "polluxsim: warning: %d of %d runs of experiment %s are not stored in %s as this version defines them (first: %s; a sweep still running, or one made by another version or with other settings): plotting without them; `polluxsim sweep` into %s completes them\n",
					len(missing), len(missing)+len(runs), exp.Name, in, missing[0], in)
			}
			rep, err := figures.Plot(exp, runs, out, figures.PlotOptions{Size: figures.FigureSize(size), Formats: formats,
				Check: figureCheck(out, inputFile{"--in", in})})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			for _, s := range rep.Skipped {
				fmt.Fprintln(cmd.ErrOrStderr(), "skipped", s)
			}
			for _, f := range rep.Files {
				fmt.Fprintln(w, "wrote", f)
			}
			return nil
		},
	}
	cmd.AddCommand(newPlotRunCmds(ext)...)
	cmd.Flags().StringVar(&in, "in", "", "a sweep's output folder")
	cmd.Flags().StringVar(&out, "out", "", "folder for the figures")
	cmd.Flags().StringVar(&size, "size", "wide", "figure size: wide (about 8 in, for a page or a screen) or column (3.4 in, one column of a two-column paper)")
	cmd.Flags().StringSliceVar(&formats, "format", []string{"png", "svg"}, "formats to write: png, svg, pdf (comma-separated or repeated)")
	return cmd
}

// newPlotRunCmds makes one subcommand per run figure kind (figures.FromRun:
// fig6, and any a binary of one's own registers): plot KIND --in RUN.
func newPlotRunCmds(ext *extensions.Extensions) []*cobra.Command {
	var cmds []*cobra.Command
	for _, k := range figures.KindsFrom(ext, figures.FromRun) {
		cmds = append(cmds, newPlotRunCmd(ext, k))
	}
	return cmds
}

func newPlotRunCmd(ext *extensions.Extensions, k figures.Kind) *cobra.Command {
	var in, out, size string
	var formats, jobs []string
	cmd := &cobra.Command{
		Use:   k.Name + " --in RUN_DIR --out DIR",
		Short: "Draw " + k.Doc + " from a run's output",
		Long: k.Name + ` reads the tables of one run (polluxsim run --out RUN_DIR) and draws ` + k.Doc + `.
--jobs names the jobs to draw where the figure draws chosen jobs (fig6: by default
the longest imagenet job and the two longest yolov3 jobs, as in the paper).
Writes DIR/` + k.FileName("") + `.*`,
		Example: `  polluxsim run --policy pollux --workload paper:1 --out out/p1
  polluxsim plot ` + k.Name + ` --in out/p1 --out out/p1/plots
  polluxsim plot ` + k.Name + ` --in out/p1 --out out/p1/plots --jobs imagenet-3,bert-7 --size column --format pdf`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if in == "" || out == "" {
				return fmt.Errorf("plot %s needs --in DIR (a run's output) and --out DIR", k.Name)
			}
			if err := needRunFolder("plot "+k.Name, in); err != nil {
				return err
			}
			rep, err := figures.PlotRun(ext, k.Name, figures.RunInput{Dir: in, Jobs: jobs}, out,
				figures.PlotOptions{Size: figures.FigureSize(size), Formats: formats, Check: figureCheck(out, inputFile{"--in", in})})
			if err != nil {
				return err
			}
			for _, f := range rep.Files {
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", f)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&in, "in", "", "a run's output folder")
	cmd.Flags().StringVar(&out, "out", "", "folder for the figure")
	cmd.Flags().StringSliceVar(&jobs, "jobs", nil, "jobs to draw (names as in jobs.parquet; default: the figure's own choice)")
	cmd.Flags().StringVar(&size, "size", "wide", "figure size: wide or column")
	cmd.Flags().StringSliceVar(&formats, "format", []string{"png", "svg"}, "formats to write: png, svg, pdf")
	return cmd
}

// figureCheck refuses a figure file that would be written onto one of the
// command's inputs (figures.PlotOptions.Check): a link in the --out
// folder to one of them, checked before any figure is written.
func figureCheck(out string, inputs ...inputFile) func(string) error {
	var kinds []string
	for _, f := range figures.FigureFormats {
		kinds = append(kinds, "."+f)
	}
	return func(path string) error { return checkNotInput(out, path, kinds, inputs...) }
}
