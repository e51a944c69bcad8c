package outputs

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/polluxsim/polluxsim/internal/inputfile"
)

// TableColumns holds columns of an output table read back: numbers as
// float64 (null as NaN), strings as string.
type TableColumns struct {
	// Rows is the number of rows; Nums and Strs hold the numeric and
	// string columns by name.
	Rows int
	Nums map[string][]float64
	Strs map[string][]string
}

// ReadTableColumns reads the named columns of a Parquet table written by
// polluxsim. A missing column is an error naming the file.
func ReadTableColumns(path string, names ...string) (*TableColumns, error) {
	f, err := inputfile.Open(path) // regular: a named pipe blocked
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer tbl.Release()
	tc := &TableColumns{Rows: int(tbl.NumRows()), Nums: map[string][]float64{}, Strs: map[string][]string{}}
	for _, name := range names {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 {
			return nil, fmt.Errorf("%s: no column %s (written by an older polluxsim? see docs/outputs.md)", path, name)
		}
		for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
			for i := 0; i < ch.Len(); i++ {
				switch a := ch.(type) {
				case *array.String:
					tc.Strs[name] = append(tc.Strs[name], a.Value(i))
				case *array.Dictionary:
					s, ok := a.Dictionary().(*array.String)
					if !ok {
						return nil, fmt.Errorf("%s: column %s has type %s", path, name, ch.DataType())
					}
					v := ""
					if a.IsValid(i) {
						v = s.Value(a.GetValueIndex(i))
					}
					tc.Strs[name] = append(tc.Strs[name], v)
				case *array.Float64:
					tc.Nums[name] = append(tc.Nums[name], nullable(a, i, a.Value(i)))
				case *array.Int64:
					tc.Nums[name] = append(tc.Nums[name], nullable(a, i, float64(a.Value(i))))
				default:
					return nil, fmt.Errorf("%s: column %s has type %s", path, name, ch.DataType())
				}
			}
		}
	}
	return tc, nil
}

func nullable(a arrow.Array, i int, v float64) float64 {
	if a.IsNull(i) {
		return math.NaN()
	}
	return v
}
