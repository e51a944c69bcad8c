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
	return atomicfile.Write(path, func(w io.Writer) error {
		// Hide Close: the parquet writer closes its sink, atomicfile must do that.
		fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		mem := memory.NewGoAllocator()
		rb := array.NewRecordBuilder(mem, schema)
		defer rb.Release()
		for start := 0; start < n || (n == 0 && start == 0); start += batchRows {
			end := min(start+batchRows, n)
			for ci, c := range cols {
				b := rb.Field(ci)
				b.Reserve(end - start)
				for i := start; i < end; i++ {
					c.put(b, i)
				}
			}
			rec := rb.NewRecordBatch()
			err := fw.WriteBuffered(rec)
			rec.Release()
			if err != nil {
				fw.Close()
				return fmt.Errorf("%s: %w", path, err)
			}
			if n == 0 {
				break
			}
		}
		for _, k := range metaOrder {
			if err := fw.AppendKeyValueMetadata(k, meta[k]); err != nil {
				fw.Close()
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		if err := fw.Close(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}
