package outputs_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/internal/parquettest"
)

// span is the row of a table declared outside the package.
type span struct {
	name   string
	start  float64
	length float64
	gpus   int
}

// spans is a table of one's own, declared once: its documentation,
// Arrow schema and writer derive from the fields.
var spans = &outputs.Table[span]{File: "spans.parquet", Where: "a test", Doc: "one row per span", Fields: []outputs.Field[span]{
	outputs.Str("name", "", "the span's name", func(s span) string { return s.name }),
	outputs.F64("start_s", "s", "when it starts", func(s span) float64 { return s.start }),
	outputs.F64Null("end_s", "s", "when it ends; null while open", func(s span) (float64, bool) { return s.start + s.length, s.length > 0 }),
	outputs.I64("gpus", "GPUs", "GPUs it holds", func(s span) int64 { return int64(s.gpus) }),
}}

// TestTableDoorFromOutside: a table declared outside the package documents
// itself (Schema: names, SQL types, nullability, units in order) and is
// written with its declared Arrow types, nulls and units; the values read
// back are the rows'.
func TestTableDoorFromOutside(t *testing.T) {
	doc := spans.Schema()
	var got []string
	for _, c := range doc.Columns {
		got = append(got, c.Name+" "+c.Type+" "+map[bool]string{true: "null", false: "not-null"}[c.Nullable]+" "+c.Unit)
	}
	want := "name VARCHAR not-null |start_s DOUBLE not-null s|end_s DOUBLE null s|gpus BIGINT not-null GPUs"
	if strings.Join(got, "|") != want {
		t.Errorf("schema %q, want %q", strings.Join(got, "|"), want)
	}
	rows := []span{{"a", 0, 10, 4}, {"b", 5, 0, 2}}
	path := filepath.Join(t.TempDir(), spans.File)
	if err := outputs.WriteTable(path, spans, func(i int) span { return rows[i] }, len(rows), map[string]string{"k": "v"}, []string{"k"}); err != nil {
		t.Fatal(err)
	}
	tbl := parquettest.ReadTable(t, path)
	for i, f := range tbl.Schema().Fields() {
		d := doc.Columns[i]
		unit, _ := f.Metadata.GetValue("unit")
		if f.Name != d.Name || outputs.SQLType(f.Type) != d.Type || f.Nullable != d.Nullable || unit != d.Unit {
			t.Errorf("column %d: written %s %s nullable=%v unit %q, declared %+v", i, f.Name, f.Type, f.Nullable, unit, d)
		}
	}
	tc, err := outputs.ReadTableColumns(path, "name", "end_s", "gpus")
	if err != nil {
		t.Fatal(err)
	}
	if tc.Strs["name"][1] != "b" || tc.Nums["end_s"][0] != 10 || !math.IsNaN(tc.Nums["end_s"][1]) || tc.Nums["gpus"][0] != 4 {
		t.Errorf("read back %v %v", tc.Strs, tc.Nums)
	}
}
