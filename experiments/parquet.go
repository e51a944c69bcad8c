package experiments

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// column describes one column of a table built row by row.
type column struct {
	name string
	typ  arrow.DataType
	// dict enables dictionary encoding (for repetitive strings); unique
	// numeric columns leave it off.
	dict bool
	// put appends row i's value to the builder.
	put func(b array.Builder, i int)
}

func strCol(name string, get func(i int) string) column {
	return column{name, arrow.BinaryTypes.String, true, func(b array.Builder, i int) { b.(*array.StringBuilder).Append(get(i)) }}
}

func f64Col(name string, get func(i int) float64) column {
	return column{name, arrow.PrimitiveTypes.Float64, false, func(b array.Builder, i int) { b.(*array.Float64Builder).Append(get(i)) }}
}

func i64Col(name string, get func(i int) int64) column {
	return column{name, arrow.PrimitiveTypes.Int64, false, func(b array.Builder, i int) { b.(*array.Int64Builder).Append(get(i)) }}
}

func boolCol(name string, get func(i int) bool) column {
	return column{name, arrow.FixedWidthTypes.Boolean, false, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(get(i)) }}
}

// batchRows is the number of rows per record batch handed to the writer.
const batchRows = 64 * 1024

// writeParquet writes n rows described by cols to path, atomically, with
// meta as the file's key-value metadata. Output is deterministic: the same
// rows give the same bytes.
func writeParquet(path string, cols []column, n int, meta map[string]string, metaOrder []string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		tw, err := newTableWriter(path, w, cols)
		if err != nil {
			return err
		}
		if err := tw.write(n, false); err != nil {
			tw.abort()
			return err
		}
		return tw.close(meta, metaOrder)
	})
}

// tableWriter writes a Parquet table in parts: rows are appended with
// write, the footer and metadata with close.
type tableWriter struct {
	path string
	cols []column
	fw   *pqarrow.FileWriter
	rb   *array.RecordBuilder
}

func newTableWriter(path string, w io.Writer, cols []column) (*tableWriter, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ}
	}
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
	for start := 0; start < n || (n == 0 && start == 0); start += batchRows {
		end := min(start+batchRows, n)
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
