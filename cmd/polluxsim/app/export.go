package app

import (
	"errors"
	"fmt"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/spf13/cobra"
)

func newExportCmd(ext *extensions.Extensions) *cobra.Command {
	var in, format, table, out string
	var o output
	cmd := &cobra.Command{
		Use:   "export --in RUN|SWEEP --format csv|jsonl [--table T] --out FILE|DIR",
		Short: "Write a run's or a sweep's tables as CSV or JSON Lines",
		Long: `export writes the Parquet tables of a run's or a sweep's output folder as CSV
(a header line; an empty field is null) or JSON Lines (one object per row), with
Arrow's own writers, for readers without Parquet (pandas without pyarrow). Each
file FILE gets a sidecar FILE.dtypes.json giving every column's type, nullability,
unit and the pandas dtype that reads it losslessly:

  pd.read_csv(f, dtype={c["name"]: c["pandas"] for c in json.load(open(f + ".dtypes.json"))["columns"]},
              keep_default_na=False, na_values=[""], float_precision="round_trip")

Without --table every table in the folder goes to the folder --out as TABLE.csv
(or .jsonl); with --table (jobs, rounds, cluster, types, nodes, results, apps) that
table goes to the file --out. The files replace earlier ones together at the end.
The columns are documented in docs/outputs.md. -o json prints {"wrote": [FILE...]}.`,
		Example: `  polluxsim export --in out/table2 --format csv --out out/table2-csv
  polluxsim export --in out/run --format jsonl --table jobs --out jobs.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if in == "" || out == "" {
				return errors.New("--in and --out are required")
			}
			if err := checkExportOut(in, format, table, out, ext.TableDocs()); err != nil {
				return err
			}
			if folderKind(in) == folderSweep {
				// The tables were made from the stored runs: a damaged
				// one is said, as plot and report say it.
				if err := sweep.CheckStoredRuns(in, ext); err != nil {
					return err
				}
			}
			files, err := outputs.ExportFolder(in, format, table, out, ext.TableDocs()...)
			if err != nil {
				return err
			}
			return o.printWrote(cmd.OutOrStdout(), nil, files...)
		},
	}
	cmd.Flags().StringVar(&in, "in", "", "a run's or a sweep's output folder (required)")
	cmd.Flags().StringVar(&format, "format", outputs.FormatCSV, "csv or jsonl")
	cmd.Flags().StringVar(&table, "table", "", "one table (jobs, rounds, cluster, types, nodes, results, apps); default: every table in the folder")
	cmd.Flags().StringVar(&out, "out", "", "output file with --table, else output folder (required)")
	o.register(cmd.Flags())
	return cmd
}

// exportKinds end the names of the files export writes.
var exportKinds = []string{"." + outputs.FormatCSV, "." + outputs.FormatJSONL, outputs.DtypesSuffix}

// checkExportOut refuses an export that would write onto its input, before
// anything is written: a file it writes that is (or links to) one of the
// folder's files, or any file inside the folder but an export's (CSV, JSON
// Lines and their sidecars), so that export --in RUN --table jobs --out
// RUN/jobs.parquet no longer replaces the table it reads. own are the
// binary's tables of its own.
func checkExportOut(in, format, table, out string, own []outputs.TableDoc) error {
	written, err := outputs.ExportFiles(in, format, table, out, own...)
	if err != nil {
		return err
	}
	for _, w := range written {
		if w == out {
			if _, err := atomicfile.Check(out); err != nil {
				return fmt.Errorf("--out %s: %w", out, err)
			}
		}
		if err := checkNotInput(out, w, exportKinds, inputFile{"--in", in}); err != nil {
			return err
		}
	}
	return nil
}
