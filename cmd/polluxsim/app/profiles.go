package app

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/version"

	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/profiles"
)

func newProfilesCmd(ext *extensions.Extensions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profiles",
		Short: "List, inspect and derive application profiles (the simulator's ground truth)",
		Long: `Application profiles are the simulator's ground truth for each model: step times
per placement and per-GPU batch size, gradient noise along training, batch limits
and training length. Built in: "embedded" (the default), the measured tables of
the Pollux artifact (petuum/adaptdl, osdi21-artifact, Apache-2.0), and
"compact", a compact model derived from them. Others come from a folder in the
reference (adaptdl) format or a compact profile file written by "profiles derive".`,
	}
	cmd.AddCommand(newProfilesListCmd(ext), newProfilesShowCmd(ext), newProfilesDeriveCmd(ext), newProfilesPlotCmd(ext))
	return cmd
}

func newProfilesListCmd(ext *extensions.Extensions) *cobra.Command {
	var dir string
	var o output
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in profile sets and the applications of one with their limits",
		Long: `list prints the built-in profile sets (the one in use marked *) and the
applications of the profiles in use with their batch limits and training
length. -o json prints {"sets": [{name, description, current}], "profiles",
"applications": [{name, init_batch, max_batch, min_local_batch,
max_local_batch, epochs, target, fixed_batch, max_gpus}]} (fixed_batch and
max_gpus 0 when unset).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			set, err := runner.LoadProfiles(dir)
			if err != nil {
				return err
			}
			l := newProfileListing(set)
			return o.print(cmd.OutOrStdout(), l, l.write)
		},
	}
	cmd.Flags().StringVar(&dir, "profiles", "", runner.ProfilesHelp)
	o.register(cmd.Flags())
	return cmd
}

// profileListing is what profiles list prints.
type profileListing struct {
	Sets         []profileSetEntry `json:"sets"`
	Profiles     string            `json:"profiles"`
	Applications []appEntry        `json:"applications"`
}

type profileSetEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Current     bool   `json:"current"`
}

type appEntry struct {
	Name       string  `json:"name"`
	InitBatch  int     `json:"init_batch"`
	MaxBatch   int     `json:"max_batch"`
	MinLocal   int     `json:"min_local_batch"`
	MaxLocal   int     `json:"max_local_batch"`
	Epochs     int     `json:"epochs"`
	Target     float64 `json:"target"`
	FixedBatch int     `json:"fixed_batch"`
	MaxGPUs    int     `json:"max_gpus"`
}

func newProfileListing(set *profiles.Set) profileListing {
	l := profileListing{Profiles: set.Source}
	for _, n := range profiles.NamedSets() {
		l.Sets = append(l.Sets, profileSetEntry{n.Name, n.Description, n.Name == set.Source})
	}
	for _, name := range set.Names() {
		a := set.Apps[name]
		lim := a.Limits
		l.Applications = append(l.Applications, appEntry{name, lim.InitBatch, lim.MaxBatch, lim.MinLocal, lim.MaxLocal,
			a.Epochs, a.Target(), a.FixedBatch, a.MaxGPUs})
	}
	return l
}

// write lists the built-in profile sets with their sources, marking the
// one in use, then the applications.
func (l profileListing) write(w io.Writer) error {
	fmt.Fprintln(w, "profile sets (--profiles NAME; or a reference-format folder or a compact profile file):")
	for _, n := range l.Sets {
		mark := " "
		if n.Current {
			mark = "*"
		}
		fmt.Fprintf(w, "%s %-9s %s\n", mark, n.Name, n.Description)
	}
	fmt.Fprintf(w, "\nprofiles: %s\n", l.Profiles)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "name\tB0\tmax batch\tper-GPU batch\tepochs\ttarget\tfixed batch\tmax GPUs\t")
	for _, a := range l.Applications {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d..%d\t%d\t%.6g\t%s\t%s\t\n", a.Name, a.InitBatch, a.MaxBatch,
			a.MinLocal, a.MaxLocal, a.Epochs, a.Target, orDash(a.FixedBatch), orDash(a.MaxGPUs))
	}
	return tw.Flush()
}

func orDash(v int) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprint(v)
}

func newProfilesShowCmd(ext *extensions.Extensions) *cobra.Command {
	var dir string
	var perNode int
	cmd := &cobra.Command{
		Use:               "show MODEL",
		ValidArgsFunction: appCompletion,
		Short:             "Show what the simulator believes about one application",
		Long: `Show prints an application's limits, training length and progress target, its
TunedJobs configurations, and tables of throughput (samples/s on packed
placements) and statistical efficiency (relative to the initial batch size)
at a few GPU counts, batch sizes and points of training.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := runner.LoadProfiles(dir)
			if err != nil {
				return err
			}
			app, err := set.App(args[0])
			if err != nil {
				return err
			}
			if err := checkGPUsPerNode(perNode); err != nil {
				return err
			}
			return writeProfile(cmd.OutOrStdout(), set, app, perNode)
		},
	}
	cmd.Flags().StringVar(&dir, "profiles", "", runner.ProfilesHelp)
	gpusPerNodeFlag(cmd.Flags(), &perNode, "GPUs per node of the packed placements in the throughput table")
	return cmd
}

func writeProfile(w io.Writer, set *profiles.Set, app *profiles.App, perNode int) error {
	l := app.Limits
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t(profiles: %s)\n", app.Name, set.Source)
	fmt.Fprintf(tw, "initial batch B0\t%d\n", l.InitBatch)
	fmt.Fprintf(tw, "max batch\t%d\n", l.MaxBatch)
	fmt.Fprintf(tw, "per-GPU batch\t%d..%d\n", l.MinLocal, l.MaxLocal)
	fmt.Fprintf(tw, "epochs\t%d\n", app.Epochs)
	fmt.Fprintf(tw, "target progress\t%.6g (iterations at B0)\n", app.Target())
	fmt.Fprintf(tw, "fixed batch\t%s\n", orDash(app.FixedBatch))
	fmt.Fprintf(tw, "max GPUs\t%s\n", orDash(app.MaxGPUs))
	fmt.Fprintf(tw, "validated batches\t%s\n", joinInts(app.ValidatedBatches))
	var tuned []string
	for _, c := range profiles.TunedConfigs(app, perNode) {
		tuned = append(tuned, fmt.Sprintf("%d GPU × %d (%.2f h)", c.Replicas, c.Batch, c.JCT/3600))
	}
	fmt.Fprintf(tw, "TunedJobs configs\t%s\n", strings.Join(tuned, ", "))
	if err := tw.Flush(); err != nil {
		return err
	}

	batches := showBatches(app)
	fmt.Fprintf(w, "\nThroughput (samples/s) on packed placements of %d GPUs per node; total batch B split into\n"+
		"per-GPU batch and accumulation steps as the simulator does (one GPU above B0 accumulates at least once):\n", perNode)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "GPUs\t")
	for _, b := range batches {
		fmt.Fprintf(tw, "B=%d\t", b)
	}
	fmt.Fprintln(tw)
	for _, k := range []int{1, 2, 4, 8, 16, 32, 64} {
		if k*l.MinLocal > l.MaxBatch {
			break
		}
		fmt.Fprintf(tw, "%d\t", k)
		for _, b := range batches {
			fmt.Fprintf(tw, "%s\t", throughputCell(app, k, perNode, b))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintln(w, "\nStatistical efficiency (relative to B0) along training:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "epoch\t")
	for _, b := range batches {
		fmt.Fprintf(tw, "B=%d\t", b)
	}
	fmt.Fprintln(tw)
	for _, e := range showEpochs(app.Epochs) {
		fmt.Fprintf(tw, "%d\t", e+1)
		for _, b := range batches {
			fb := float64(b)
			fmt.Fprintf(tw, "%.3f\t", app.Truth.Grad(fb, e).Efficiency(float64(l.InitBatch), fb))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// throughputCell is the samples/s of k GPUs (packed) at total batch b, or
// "-" when the batch cannot be split within the per-GPU limits.
func throughputCell(app *profiles.App, k, perNode, b int) string {
	m, s, ok := app.Limits.Split(k, float64(b))
	if !ok {
		return "-"
	}
	pf := app.Perf(models.PackedPlacement(k, perNode), m, s, 0)
	if !(pf.Iter > 0) {
		return "-"
	}
	return fmt.Sprintf("%.0f", pf.Throughput)
}

// showBatches picks at most 7 validated batch sizes, spread over the range.
func showBatches(app *profiles.App) []int {
	vb := app.ValidatedBatches
	if len(vb) <= 7 {
		return vb
	}
	out := make([]int, 0, 7)
	for i := 0; i < 7; i++ {
		out = append(out, vb[i*(len(vb)-1)/6])
	}
	return out
}

// showEpochs picks the first, last and a few middle epochs (0-based).
func showEpochs(epochs int) []int {
	var out []int
	for _, f := range []float64{0, 0.1, 0.25, 0.5, 0.75, 1} {
		e := int(f * float64(epochs-1))
		if len(out) == 0 || e > out[len(out)-1] {
			out = append(out, e)
		}
	}
	return out
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func newProfilesDeriveCmd(ext *extensions.Extensions) *cobra.Command {
	var from, out, source, license string
	var types []string
	cmd := &cobra.Command{
		Use:   "derive --from DIR --out FILE [--types T1,T2,...]",
		Short: "Derive a compact profile file from data in the reference format",
		Long: `Derive fits a compact model of every application of a reference-format data
set (see "profiles show" for what the simulator reads from it): a throughput
model θ_sys with a small correction surface, the gradient noise along training,
limits and training length. The file holds a few dozen numbers per application
and the provenance given by --source and --license; it does not contain the
measurements. It prints how far the compact model is from the data.

With --types, derive reads data in the Sia artifact's layout (placements-<type>.csv
and scalability-<type>.csv per GPU type) and writes only per-type throughput
models for the listed GPU types: θ_sys with its correction surface and the
per-GPU batch range of each application on each type it has tables for. This
is how the default profiles' models for GPU types other than T4 are made
(profiles/default/types.json); the training curve is not part of that file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || out == "" {
				return errors.New("derive needs --from DIR and --out FILE")
			}
			if err := checkOutFile(out, inputFile{"--from", from}); err != nil {
				return err
			}
			set, err := profiles.Load(from)
			if err != nil {
				return err
			}
			if source == "" {
				source = "reference-format data from folder " + filepath.Base(filepath.Clean(from))
			}
			if len(types) > 0 {
				return deriveTypes(cmd.OutOrStdout(), set, types, out, source, license)
			}
			f, err := profiles.Derive(set, profiles.Provenance{
				Source:    source,
				License:   license,
				DerivedBy: "polluxsim profiles derive (polluxsim " + version.Release + ")",
			})
			if err != nil {
				return err
			}
			if err := f.WriteFile(out); err != nil {
				return err
			}
			return writeDeriveSummary(cmd.OutOrStdout(), set, f.Set(out), out)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "data in the reference format (data root or its traces/ folder)")
	cmd.Flags().StringVar(&out, "out", "", "compact profile file to write (JSON)")
	cmd.Flags().StringVar(&source, "source", "", "provenance of the data, recorded in the file (repository, commit, folder)")
	cmd.Flags().StringVar(&license, "license", "", "license of the data, recorded in the file")
	cmd.Flags().StringSliceVar(&types, "types", nil, "derive per-type throughput models for these GPU types (Sia layout; e.g. v100,a100,rtx6000,rtx2080ti)")
	return cmd
}

// deriveTypes writes the per-type models of set for the given GPU types to
// out and prints how far they are from the tables.
func deriveTypes(w io.Writer, set *profiles.Set, types []string, out, source, license string) error {
	f, err := profiles.DeriveTypes(set, types, profiles.Provenance{
		Source:    source,
		License:   license,
		DerivedBy: "polluxsim profiles derive --types (polluxsim " + version.Release + ")",
	})
	if err != nil {
		return fmt.Errorf("--types: %w", err)
	}
	if err := f.WriteFile(out); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %d applications\n", out, len(f.Apps))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "app\ttype\trows\tstep time err rms\tmean\tp90\tmax\t")
	for _, at := range f.Apps {
		base := set.Apps[at.Name]
		for _, ct := range at.Types {
			e, err := profiles.CompareSteps(base.ForType(ct.Type), ct.App(base))
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", at.Name, ct.Type, e.N,
				100*e.RMS, 100*e.Mean, 100*e.P90, 100*e.Max)
		}
	}
	return tw.Flush()
}

func writeDeriveSummary(w io.Writer, real, compact *profiles.Set, out string) error {
	fmt.Fprintf(w, "wrote %s: %d applications\n", out, len(compact.Apps))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "app\tstep time err mean\tp90\tefficiency err mean\tp90\titerations err mean\t")
	for _, name := range real.Names() {
		c, err := profiles.Compare(real.Apps[name], compact.Apps[name])
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", name, 100*c.Step.Mean, 100*c.Step.P90,
			100*c.Efficiency.Mean, 100*c.Efficiency.P90, 100*c.Iterations.Mean)
	}
	return tw.Flush()
}

func newProfilesPlotCmd(ext *extensions.Extensions) *cobra.Command {
	var dir, out, size, kind string
	var formats []string
	cmd := &cobra.Command{
		Use:               "plot MODEL --out DIR",
		ValidArgsFunction: appCompletion,
		Short:             "Draw the fitted throughput model against the measured step times (paper Fig 3)",
		Long: `plot fits the throughput model θ_sys (the scheduler's model, models.Fit) to every
measured step time of one application and draws both: throughput against the
number of GPUs at three per-GPU batch sizes, and step time against the per-GPU
batch size on 1, 4, 16 and 64 GPUs; measured values are marks, the model lines.
The caption names the profiles and the fit's RMS log error. Needs measured
tables (the embedded default or a reference folder). Writes
DIR/fig3-throughput-MODEL.*. --kind draws another profile figure kind instead,
one a binary of one's own registers (figures.Register with DrawProfile).`,
		Example: `  polluxsim profiles plot imagenet --out out/fig3
  polluxsim profiles plot bert --out paper/figs --size column --format pdf`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return errors.New("profiles plot needs --out DIR")
			}
			set, err := runner.LoadProfiles(dir)
			if err != nil {
				return err
			}
			app, err := set.App(args[0])
			if err != nil {
				return err
			}
			rep, err := figures.PlotProfile(ext, kind, app, set.Source, out, figures.PlotOptions{Size: figures.FigureSize(size), Formats: formats,
				Check: figureCheck(out, inputFile{"--profiles", dir})})
			if err != nil {
				return err
			}
			for _, f := range rep.Files {
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", f)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "profiles", "", runner.ProfilesHelp)
	cmd.Flags().StringVar(&out, "out", "", "folder for the figure")
	cmd.Flags().StringVar(&kind, "kind", figures.KindProfileFit, "the profile figure kind to draw")
	cmd.Flags().StringVar(&size, "size", "wide", "figure size: wide or column")
	cmd.Flags().StringSliceVar(&formats, "format", []string{"png", "svg"}, "formats to write: png, svg, pdf")
	return cmd
}
