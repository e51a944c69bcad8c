package experiments

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
type column struct {
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

func strCol(name string, get func(i int) string) column {
	return column{name, stringDict, true, func(b array.Builder, i int) {
		b.(*array.BinaryDictionaryBuilder).AppendString(get(i)) //nolint:errcheck // a string builder takes strings
	}}
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

// strNull, f64Null and i64Null are nullable columns: get's ok = false
// writes a null.
func strNull(name string, get func(i int) (string, bool)) column {
	return column{name, stringDict, true, func(b array.Builder, i int) {
		if v, ok := get(i); ok {
			b.(*array.BinaryDictionaryBuilder).AppendString(v) //nolint:errcheck // a string builder takes strings
		} else {
			b.AppendNull()
		}
	}}
}

func f64Null(name string, get func(i int) (float64, bool)) column {
	return column{name, arrow.PrimitiveTypes.Float64, false, func(b array.Builder, i int) {
		if v, ok := get(i); ok && !math.IsNaN(v) {
			b.(*array.Float64Builder).Append(v)
		} else {
			b.AppendNull()
		}
	}}
}

func i64Null(name string, get func(i int) (int64, bool)) column {
	return column{name, arrow.PrimitiveTypes.Int64, false, func(b array.Builder, i int) {
		if v, ok := get(i); ok {
			b.(*array.Int64Builder).Append(v)
		} else {
			b.AppendNull()
		}
	}}
}

// sqlType is the documented type of an Arrow type.
func sqlType(t arrow.DataType) string {
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
func writeTable(path string, t *TableDoc, cols []column, n int, meta map[string]string, metaOrder []string) error {
	if len(cols) != len(t.Columns) {
		return fmt.Errorf("%s: %d columns written, %d documented", path, len(cols), len(t.Columns))
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		d := t.Columns[i]
		if c.name != d.Name || sqlType(c.typ) != d.Type {
			return fmt.Errorf("%s: column %d is %s %s, documented as %s %s", path, i, c.name, sqlType(c.typ), d.Name, d.Type)
		}
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: d.Nullable}
		if d.Unit != "" {
			fields[i].Metadata = arrow.NewMetadata([]string{"unit"}, []string{d.Unit})
		}
	}
	kv := map[string]string{"polluxsim.schema_version": strconv.Itoa(SchemaVersion)}
	order := []string{"polluxsim.schema_version"}
	for _, k := range metaOrder {
		kv[k] = meta[k]
		order = append(order, k)
	}
	return writeParquet(path, fields, cols, n, kv, order)
}

// batchRows is the number of rows per record batch handed to the writer.
const batchRows = 64 * 1024

// writeParquet writes n rows described by cols to path, atomically, with
// meta as the file's key-value metadata. Output is deterministic: the same
// rows give the same bytes.
func writeParquet(path string, fields []arrow.Field, cols []column, n int, meta map[string]string, metaOrder []string) error {
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
