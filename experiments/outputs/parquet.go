package outputs

import (
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// column is one column of a table being written, bound to its rows (see
// Table.columns).
type column struct {
	name string
	// dict enables dictionary encoding (for repetitive strings).
	dict bool
	// put appends row i's value (or a null) to the builder.
	put func(b array.Builder, i int)
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

// WriteTable writes n rows of the declared table t to path, atomically:
// row i is row(i). The Arrow fields take their types, nullability and
// units from t's declaration; meta is the file's key-value metadata after
// the schema version, in metaOrder.
func WriteTable[R any](path string, t *Table[R], row func(i int) R, n int, meta map[string]string, metaOrder []string) error {
	return putTable(atomicfile.Write, path, t, row, n, meta, metaOrder)
}

// stageTable is WriteTable into the batch b: the file replaces path when
// b commits.
func stageTable[R any](b *atomicfile.Batch, path string, t *Table[R], row func(i int) R, n int, meta map[string]string, metaOrder []string) error {
	return putTable(b.Write, path, t, row, n, meta, metaOrder)
}

// putTable writes the table with put, which fills path's new content
// (atomicfile.Write, or a batch's Write).
func putTable[R any](put func(path string, fill func(io.Writer) error) error, path string, t *Table[R], row func(i int) R, n int, meta map[string]string, metaOrder []string) error {
	kv, order := tableMeta(meta, metaOrder)
	t = t.written(row, n)
	return put(path, func(w io.Writer) error {
		tw, err := newTableWriter(path, w, t.arrowFields(), t.columns(row))
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

// BatchRows is the number of rows per record batch handed to the writer.
// Output is deterministic: the same rows give the same bytes.
const BatchRows = 64 * 1024

// tableWriter writes a Parquet table in parts: rows are appended with
// write, the footer and metadata with close.
type tableWriter struct {
	path string
	cols []column
	fw   *pqarrow.FileWriter
	rb   *array.RecordBuilder
}

func newTableWriter(path string, w io.Writer, fields []arrow.Field, cols []column) (*tableWriter, error) {
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
