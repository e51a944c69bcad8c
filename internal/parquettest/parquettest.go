// Package parquettest reads Parquet files back for tests.
package parquettest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadTable reads a whole Parquet file as an Arrow table, failing the test
// on any error. The caller releases the table.
func ReadTable(tb testing.TB, path string) arrow.Table {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return tbl
}

// Strings returns the values of a string column chunk, plain or
// dictionary-encoded (nulls as "").
func Strings(a arrow.Array) []string {
	out := make([]string, a.Len())
	switch s := a.(type) {
	case *array.String:
		for i := range out {
			out[i] = s.Value(i)
		}
	case *array.Dictionary:
		vals := s.Dictionary().(*array.String)
		for i := range out {
			if s.IsValid(i) {
				out[i] = vals.Value(s.GetValueIndex(i))
			}
		}
	}
	return out
}

// Float64Column returns the values of a table's float64 column, failing
// the test when there is no such column.
func Float64Column(tb testing.TB, tbl arrow.Table, name string) []float64 {
	tb.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		tb.Fatalf("no column %s", name)
	}
	var out []float64
	for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
		out = append(out, ch.(*array.Float64).Float64Values()...)
	}
	return out
}

// DiffExcept compares two tables column by column, values and nulls,
// leaving out the named columns, and returns what differs ("" when
// nothing does): a missing column, a column of another type, or the first
// column whose values differ.
func DiffExcept(a, b arrow.Table, skip ...string) string {
	left := map[string]bool{}
	for _, s := range skip {
		left[s] = true
	}
	if a.NumRows() != b.NumRows() {
		return fmt.Sprintf("%d rows against %d", a.NumRows(), b.NumRows())
	}
	if a.NumCols() != b.NumCols() {
		return fmt.Sprintf("%d columns against %d", a.NumCols(), b.NumCols())
	}
	for i := 0; i < int(a.NumCols()); i++ {
		fa, fb := a.Schema().Field(i), b.Schema().Field(i)
		if fa.Name != fb.Name || !arrow.TypeEqual(fa.Type, fb.Type) {
			return fmt.Sprintf("column %d: %s %s against %s %s", i, fa.Name, fa.Type, fb.Name, fb.Type)
		}
		if left[fa.Name] {
			continue
		}
		if !array.ChunkedEqual(a.Column(i).Data(), b.Column(i).Data()) {
			return "column " + fa.Name + " differs"
		}
	}
	return ""
}
