package experiments

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/polluxsim/polluxsim/internal/parquettest"
)

func readParquet(t *testing.T, path string) arrow.Table {
	t.Helper()
	return parquettest.ReadTable(t, path)
}

func columnFloat64(t *testing.T, tbl arrow.Table, name string) []float64 {
	t.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %s", name)
	}
	var out []float64
	for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
		out = append(out, ch.(*array.Float64).Float64Values()...)
	}
	return out
}
