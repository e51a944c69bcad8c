package outputs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// Export formats: CSV with a header line (Arrow's CSV writer; a null is
// an empty field) and JSON Lines (one object per row, Arrow's JSON
// encoding; a null is null).
const (
	FormatCSV   = "csv"
	FormatJSONL = "jsonl"
)

// ExportColumn types one exported column: its documented SQL type,
// nullability and unit, and the pandas dtype that reads it losslessly
// (string, Int64, float64, boolean).
type ExportColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
	Unit     string `json:"unit,omitempty"`
	Pandas   string `json:"pandas"`
}

// ExportTypes is an exported file's sidecar (FILE.dtypes.json): the
// table it came from, its schema version and its columns in order.
type ExportTypes struct {
	Table         string         `json:"table"`
	SchemaVersion string         `json:"schema_version"`
	Format        string         `json:"format"`
	Columns       []ExportColumn `json:"columns"`
}

// DtypesSuffix ends the name of an exported file's sidecar.
const DtypesSuffix = ".dtypes.json"

// pandasType is the pandas dtype of a documented SQL type.
var pandasType = map[string]string{TypeString: "string", TypeInt: "Int64", TypeFloat: "float64", TypeBool: "boolean"}

// ExportFolder writes the tables of a run's or a sweep's folder in as
// format (FormatCSV or FormatJSONL), each with its sidecar of types: with
// table ("jobs" or "jobs.parquet") that table alone to the file out (into
// out when it is a folder), otherwise every documented table in the folder
// (Tables, and own: the binary's tables of its own, see RunTable) to the
// folder out as TABLE.csv or TABLE.jsonl. The files replace earlier
// ones together at the end; on an error none is written. It returns the
// files written (ExportFiles lists them beforehand).
func ExportFolder(in, format, table, out string, own ...TableDoc) ([]string, error) {
	jobs, err := planExport(in, format, table, out, own)
	if err != nil {
		return nil, err
	}
	if table == "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, fmt.Errorf("--out %s: %w", out, err)
		}
	}
	var b atomicfile.Batch
	var files []string
	for _, j := range jobs {
		var types ExportTypes
		if err := b.Write(j.dst, func(w io.Writer) error {
			var err error
			types, err = ExportTable(w, j.src, format)
			return err
		}); err != nil {
			b.Abort()
			return nil, err
		}
		data, _ := json.MarshalIndent(types, "", "  ")
		if err := b.Write(j.dst+DtypesSuffix, func(w io.Writer) error { _, err := w.Write(append(data, '\n')); return err }); err != nil {
			b.Abort()
			return nil, err
		}
		files = append(files, j.dst, j.dst+DtypesSuffix)
	}
	if err := b.Commit(); err != nil {
		return nil, err
	}
	return files, nil
}

// ExportFiles lists the files ExportFolder would write (each followed by
// its sidecar), without writing anything, or its error about its
// arguments.
func ExportFiles(in, format, table, out string, own ...TableDoc) ([]string, error) {
	jobs, err := planExport(in, format, table, out, own)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, j := range jobs {
		files = append(files, j.dst, j.dst+DtypesSuffix)
	}
	return files, nil
}

// exportJob is one table an export writes: from src to dst.
type exportJob struct{ src, dst string }

// planExport checks ExportFolder's arguments and lists its tables, without
// writing anything.
func planExport(in, format, table, out string, own []TableDoc) ([]exportJob, error) {
	if format != FormatCSV && format != FormatJSONL {
		return nil, fmt.Errorf("--format %q: want %s or %s", format, FormatCSV, FormatJSONL)
	}
	if st, err := os.Stat(in); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--in %s: not a folder (want a run's or a sweep's output folder)", in)
	}
	var present []string
	for _, t := range append(Tables(), own...) {
		if st, err := os.Stat(filepath.Join(in, t.File)); err == nil && st.Mode().IsRegular() {
			present = append(present, t.File)
		}
	}
	if len(present) == 0 {
		return nil, fmt.Errorf("--in %s: no output table there (want the folder of polluxsim run --out or sweep --out)", in)
	}
	if table != "" {
		name := strings.TrimSuffix(table, ".parquet") + ".parquet"
		found := false
		for _, p := range present {
			found = found || p == name
		}
		if !found {
			return nil, fmt.Errorf("--table %s: %s has no such table (it has %s)", table, in, strings.Join(tableNames(present), ", "))
		}
		dst := out
		if st, err := os.Stat(out); err == nil && st.IsDir() {
			dst = filepath.Join(out, strings.TrimSuffix(name, ".parquet")+"."+format)
		}
		return []exportJob{{filepath.Join(in, name), dst}}, nil
	}
	if st, err := os.Stat(out); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("--out %s: a file; without --table the export is a folder of tables", out)
	}
	var jobs []exportJob
	for _, p := range present {
		jobs = append(jobs, exportJob{filepath.Join(in, p), filepath.Join(out, strings.TrimSuffix(p, ".parquet")+"."+format)})
	}
	return jobs, nil
}

func tableNames(files []string) []string {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, ".parquet")
	}
	return names
}

// ExportTable writes the Parquet table at path to w in format, batch by
// batch (memory follows a batch, not the table), strings as plain text,
// and returns its columns' types.
func ExportTable(w io.Writer, path, format string) (ExportTypes, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return ExportTypes{}, err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return ExportTypes{}, fmt.Errorf("%s: not a Parquet table: %w", path, err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: BatchRows}, memory.DefaultAllocator)
	if err != nil {
		return ExportTypes{}, fmt.Errorf("%s: %w", path, err)
	}
	sc, err := fr.Schema()
	if err != nil {
		return ExportTypes{}, fmt.Errorf("%s: %w", path, err)
	}
	types := ExportTypes{Table: filepath.Base(path), Format: format}
	if v := rdr.MetaData().KeyValueMetadata().FindValue("polluxsim.schema_version"); v != nil {
		types.SchemaVersion = *v
	}
	plain := make([]arrow.Field, sc.NumFields())
	for i, fd := range sc.Fields() {
		t := SQLType(fd.Type)
		pt, ok := pandasType[t]
		if !ok {
			return ExportTypes{}, fmt.Errorf("%s: column %s has type %s, not one of an output table's", path, fd.Name, fd.Type)
		}
		unit, _ := fd.Metadata.GetValue("unit")
		types.Columns = append(types.Columns, ExportColumn{fd.Name, t, fd.Nullable, unit, pt})
		plain[i] = arrow.Field{Name: fd.Name, Type: fd.Type, Nullable: fd.Nullable}
		if t == TypeString {
			plain[i].Type = arrow.BinaryTypes.String
		}
	}
	schema := arrow.NewSchema(plain, nil)
	var put func(rec arrow.RecordBatch) error
	var flush func() error
	switch format {
	case FormatCSV:
		cw := csv.NewWriter(w, schema, csv.WithHeader(true), csv.WithNullWriter(""), csv.WithBoolWriter(strconv.FormatBool))
		put, flush = cw.Write, cw.Flush
	case FormatJSONL:
		put = func(rec arrow.RecordBatch) error { return array.RecordToJSON(rec, w) }
		flush = func() error { return nil }
	default:
		return ExportTypes{}, fmt.Errorf("format %q: want %s or %s", format, FormatCSV, FormatJSONL)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return ExportTypes{}, fmt.Errorf("%s: %w", path, err)
	}
	defer rr.Release()
	wrote := false
	for rr.Next() {
		rec, err := plainStrings(rr.RecordBatch(), schema)
		if err != nil {
			return ExportTypes{}, fmt.Errorf("%s: %w", path, err)
		}
		err = put(rec)
		rec.Release()
		if err != nil {
			return ExportTypes{}, err
		}
		wrote = true
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		return ExportTypes{}, fmt.Errorf("%s: %w", path, err)
	}
	if !wrote && format == FormatCSV { // the header of an empty table
		empty := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		rec := empty.NewRecordBatch()
		err := put(rec)
		rec.Release()
		empty.Release()
		if err != nil {
			return ExportTypes{}, err
		}
	}
	return types, flush()
}

// plainStrings is rec with its dictionary-encoded string columns decoded
// to plain strings (schema), which the CSV and JSON writers take.
func plainStrings(rec arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d, ok := c.(*array.Dictionary)
		if !ok {
			c.Retain()
			cols[i] = c
			continue
		}
		dict, ok := d.Dictionary().(*array.String)
		if !ok {
			return nil, fmt.Errorf("column %s has type %s", rec.ColumnName(i), c.DataType())
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for k := 0; k < d.Len(); k++ {
			if d.IsNull(k) {
				b.AppendNull()
			} else {
				b.Append(dict.Value(d.GetValueIndex(k)))
			}
		}
		cols[i] = b.NewArray()
		b.Release()
	}
	out := array.NewRecordBatch(schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
