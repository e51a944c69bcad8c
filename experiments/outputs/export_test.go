package outputs

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExportRoundTrip: every value of a run's tables, exported as CSV and
// as JSON Lines, reads back exactly (doubles bit for bit, null as an empty
// field or null) as ReadTableColumns reads the Parquet; the sidecar lists
// the documented columns, types and units; an export that fails (an
// unknown table) writes nothing.
func TestExportRoundTrip(t *testing.T) {
	in := t.TempDir()
	smallRun(t, "tiresias", 1, in)
	out := filepath.Join(t.TempDir(), "csv")
	files, err := ExportFolder(in, FormatCSV, "", out)
	if err != nil {
		t.Fatal(err)
	}
	jl := filepath.Join(t.TempDir(), "jsonl")
	if _, err := ExportFolder(in, FormatJSONL, "", jl); err != nil {
		t.Fatal(err)
	}
	if len(files) != 8 { // jobs, rounds, cluster, types and their sidecars
		t.Fatalf("wrote %v", files)
	}
	for _, tb := range []string{"jobs", "rounds", "cluster", "types"} {
		doc := Schema(tb + ".parquet")
		// A run without deadlines has none of the conditional columns.
		cols := doc.Columns[:0:0]
		for _, c := range doc.Columns {
			if !c.Conditional {
				cols = append(cols, c)
			}
		}
		doc.Columns = cols
		var types ExportTypes
		data, _ := os.ReadFile(filepath.Join(out, tb+".csv"+DtypesSuffix))
		if err := json.Unmarshal(data, &types); err != nil || types.SchemaVersion != strconv.Itoa(SchemaVersion) || len(types.Columns) != len(doc.Columns) {
			t.Fatalf("%s sidecar: %v %+v", tb, err, types)
		}
		names := make([]string, len(doc.Columns))
		for i, c := range doc.Columns {
			names[i] = c.Name
			if e := types.Columns[i]; e.Name != c.Name || e.Type != c.Type || e.Nullable != c.Nullable || e.Unit != c.Unit || e.Pandas != pandasType[c.Type] {
				t.Errorf("%s sidecar column %d: %+v, documented %+v", tb, i, e, c)
			}
		}
		want, err := ReadTableColumns(filepath.Join(in, tb+".parquet"), names...)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(filepath.Join(out, tb+".csv"))
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(recs) != want.Rows+1 || strings.Join(recs[0], ",") != strings.Join(names, ",") {
			t.Fatalf("%s.csv: %v, %d rows (want %d), header %v", tb, err, len(recs)-1, want.Rows, recs[0])
		}
		js, err := os.ReadFile(filepath.Join(jl, tb+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(js), []byte("\n"))
		if len(lines) != want.Rows {
			t.Fatalf("%s.jsonl: %d lines, want %d", tb, len(lines), want.Rows)
		}
		for i := 0; i < want.Rows; i++ {
			var obj map[string]any
			dec := json.NewDecoder(bytes.NewReader(lines[i]))
			dec.UseNumber()
			if err := dec.Decode(&obj); err != nil {
				t.Fatal(err)
			}
			for k, c := range doc.Columns {
				field, js := recs[i+1][k], obj[c.Name]
				if c.Type == TypeString {
					w := want.Strs[c.Name][i]
					if field != w || (js != nil && js != w) || (js == nil && (!c.Nullable || w != "")) {
						t.Fatalf("%s row %d %s: CSV %q, JSON %v, Parquet %q", tb, i, c.Name, field, js, w)
					}
					continue
				}
				w := want.Nums[c.Name][i]
				if math.IsNaN(w) {
					if field != "" || js != nil {
						t.Fatalf("%s row %d %s: CSV %q, JSON %v for a null", tb, i, c.Name, field, js)
					}
					continue
				}
				got, err := strconv.ParseFloat(field, 64)
				n, _ := js.(json.Number)
				gj, err2 := strconv.ParseFloat(string(n), 64)
				if err != nil || err2 != nil || got != w || gj != w {
					t.Fatalf("%s row %d %s: CSV %q, JSON %v, Parquet %v", tb, i, c.Name, field, js, w)
				}
			}
		}
	}
	if _, err := ExportFolder(in, FormatCSV, "results", filepath.Join(t.TempDir(), "r.csv")); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("--table results of a run: %v", err)
	}
}
