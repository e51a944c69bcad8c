package outputs

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// column describes one column of a table built row by row.
type Column struct {
	name string
	typ  arrow.DataType
	// dict enables dictionary encoding (for repetitive strings); unique
	// numeric columns leave it off.
	dict bool
	// put appends row i's value (or a null) to the builder.
	put func(b array.Builder, i int)
}

// stringDict is the in-memory type of string columns: dictionary-encoded,
// so that readers that keep Arrow's types (pandas through pyarrow, Polars)
// get categoricals; Parquet stores plain (dictionary-encoded) strings.
var stringDict = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

func StrCol(name string, get func(i int) string) Column {
	return Column{name, stringDict, true, func(b array.Builder, i int) {
		b.(*array.BinaryDictionaryBuilder).AppendString(get(i)) //nolint:errcheck // a string builder takes strings
	}}
}

func F64Col(name string, get func(i int) float64) Column {
	return Column{name, arrow.PrimitiveTypes.Float64, false, func(b array.Builder, i int) { b.(*array.Float64Builder).Append(get(i)) }}
}

func I64Col(name string, get func(i int) int64) Column {
	return Column{name, arrow.PrimitiveTypes.Int64, false, func(b array.Builder, i int) { b.(*array.Int64Builder).Append(get(i)) }}
}

func BoolCol(name string, get func(i int) bool) Column {
	return Column{name, arrow.FixedWidthTypes.Boolean, false, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(get(i)) }}
}

// strNull, f64Null and i64Null are nullable columns: get's ok = false
// writes a null.
func StrNull(name string, get func(i int) (string, bool)) Column {
	return Column{name, stringDict, true, func(b array.Builder, i int) {
		if v, ok := get(i); ok {
			b.(*array.BinaryDictionaryBuilder).AppendString(v) //nolint:errcheck // a string builder takes strings
		} else {
			b.AppendNull()
		}
	}}
}

func F64Null(name string, get func(i int) (float64, bool)) Column {
	return Column{name, arrow.PrimitiveTypes.Float64, false, func(b array.Builder, i int) {
		if v, ok := get(i); ok && !math.IsNaN(v) {
			b.(*array.Float64Builder).Append(v)
		} else {
			b.AppendNull()
		}
	}}
}

func I64Null(name string, get func(i int) (int64, bool)) Column {
	return Column{name, arrow.PrimitiveTypes.Int64, false, func(b array.Builder, i int) {
		if v, ok := get(i); ok {
			b.(*array.Int64Builder).Append(v)
		} else {
			b.AppendNull()
		}
	}}
}

// SQLType is the documented (SQL) type of an Arrow type.
func SQLType(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return TypeString
	case arrow.DICTIONARY:
		if t.(*arrow.DictionaryType).ValueType.ID() == arrow.STRING {
			return TypeString
		}
	case arrow.INT64:
		return TypeInt
	case arrow.FLOAT64:
		return TypeFloat
	case arrow.BOOL:
		return TypeBool
	}
	return t.String()
}

// writeTable writes n rows of the documented table t to path. cols must be
// t's columns, in order, with their documented types (an error otherwise:
// the schema documentation and the writers cannot drift apart); the Arrow
// fields take their nullability and unit from the documentation.
func WriteTable(path string, t *TableDoc, cols []Column, n int, meta map[string]string, metaOrder []string) error {
	return putTable(atomicfile.Write, path, t, cols, n, meta, metaOrder)
}

// stageTable is WriteTable into the batch b: the file replaces path when
// b commits.
func stageTable(b *atomicfile.Batch, path string, t *TableDoc, cols []Column, n int, meta map[string]string, metaOrder []string) error {
	return putTable(b.Write, path, t, cols, n, meta, metaOrder)
}

// putTable writes the table with put, which fills path's new content
// (atomicfile.Write, or a batch's Write).
func putTable(put func(path string, fill func(io.Writer) error) error, path string, t *TableDoc, cols []Column, n int, meta map[string]string, metaOrder []string) error {
	fields, err := tableFields(path, t, cols)
	if err != nil {
		return err
	}
	kv, order := tableMeta(meta, metaOrder)
	return put(path, func(w io.Writer) error {
		tw, err := newTableWriter(path, w, fields, cols)
		if err != nil {
			return err
		}
		if err := tw.write(n, false); err != nil {
			tw.abort()
			return err
		}
		return tw.close(kv, order)
	})
}

// tableFields checks that cols are t's documented columns and gives their
// Arrow fields (see writeTable).
func tableFields(path string, t *TableDoc, cols []Column) ([]arrow.Field, error) {
	if len(cols) != len(t.Columns) {
		return nil, fmt.Errorf("%s: %d columns written, %d documented", path, len(cols), len(t.Columns))
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		d := t.Columns[i]
		if c.name != d.Name || SQLType(c.typ) != d.Type {
			return nil, fmt.Errorf("%s: column %d is %s %s, documented as %s %s", path, i, c.name, SQLType(c.typ), d.Name, d.Type)
		}
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: d.Nullable}
		if d.Unit != "" {
			fields[i].Metadata = arrow.NewMetadata([]string{"unit"}, []string{d.Unit})
		}
	}
	return fields, nil
}

// tableMeta is a documented table's key-value metadata: the schema version,
// then meta in metaOrder.
func tableMeta(meta map[string]string, metaOrder []string) (map[string]string, []string) {
	kv := map[string]string{"polluxsim.schema_version": strconv.Itoa(SchemaVersion)}
	order := []string{"polluxsim.schema_version"}
	for _, k := range metaOrder {
		kv[k] = meta[k]
		order = append(order, k)
	}
	return kv, order
}

// batchRows is the number of rows per record batch handed to the writer.
const BatchRows = 64 * 1024

// writeParquet writes n rows described by cols to path, atomically, with
// meta as the file's key-value metadata. Output is deterministic: the same
// rows give the same bytes.

// tableWriter writes a Parquet table in parts: rows are appended with
// write, the footer and metadata with close.
type tableWriter struct {
	path string
	cols []Column
	fw   *pqarrow.FileWriter
	rb   *array.RecordBuilder
}

func newTableWriter(path string, w io.Writer, fields []arrow.Field, cols []Column) (*tableWriter, error) {
	schema := arrow.NewSchema(fields, nil)
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false),
		parquet.WithCreatedBy("polluxsim"),
	}
	for _, c := range cols {
		if c.dict {
			opts = append(opts, parquet.WithDictionaryFor(c.name, true))
		}
	}
	props := parquet.NewWriterProperties(opts...)
	// Hide Close: the parquet writer closes its sink, the caller must do that.
	fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &tableWriter{path: path, cols: cols, fw: fw, rb: array.NewRecordBuilder(memory.NewGoAllocator(), schema)}, nil
}

// write appends rows 0..n-1 of the columns (n = 0 writes an empty batch).
// With rowGroups, every batch of rows becomes a row group of its own and
// is flushed to the sink, so that memory does not grow with the table;
// otherwise rows are buffered into one row group until close.
func (t *tableWriter) write(n int, rowGroups bool) error {
	for start := 0; start < n || (n == 0 && start == 0); start += BatchRows {
		end := min(start+BatchRows, n)
		for ci, c := range t.cols {
			b := t.rb.Field(ci)
			b.Reserve(end - start)
			for i := start; i < end; i++ {
				c.put(b, i)
			}
		}
		rec := t.rb.NewRecordBatch()
		var err error
		if rowGroups {
			err = t.fw.Write(rec)
		} else {
			err = t.fw.WriteBuffered(rec)
		}
		rec.Release()
		if err != nil {
			return fmt.Errorf("%s: %w", t.path, err)
		}
		if n == 0 {
			break
		}
	}
	return nil
}

// close writes the metadata and the footer.
func (t *tableWriter) close(meta map[string]string, metaOrder []string) error {
	defer t.rb.Release()
	for _, k := range metaOrder {
		if err := t.fw.AppendKeyValueMetadata(k, meta[k]); err != nil {
			t.fw.Close()
			return fmt.Errorf("%s: %w", t.path, err)
		}
	}
	if err := t.fw.Close(); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	return nil
}

// abort releases the writer after a failure.
func (t *tableWriter) abort() {
	t.fw.Close()
	t.rb.Release()
}
