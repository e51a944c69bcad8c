package profiles

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A tiny, made-up application in the reference format: two nodes at most,
// two per-GPU batch sizes, two validated batch sizes of two epochs.
const (
	toyPlacements = `placement,local_bsz,step_time,sync_time
1,8,0.10,0.001
1,16,0.18,0.001
2,8,0.12,0.02
2,16,0.20,0.02
11,8,0.20,0.10
11,16,0.28,0.10
12,8,0.22,0.11
12,16,0.30,0.11
22,8,0.25,0.13
22,16,0.33,0.13
`
	toyScalability = `num_nodes,num_replicas,local_bsz,step_time,sync_time
4,4,8,0.40,0.30
4,4,16,0.48,0.30
4,8,8,0.45,0.33
4,8,16,0.53,0.33
`
	toyValidation16 = `progress,iteration,metric,grad_sqr,grad_var
100,100,0.5,2.0,1.0
200,200,0.7,1.0,4.0
`
	toyValidation64 = `progress,iteration,metric,grad_sqr,grad_var
101,30,0.45,2.2,1.5
203,55,0.69,1.1,3.0
`
)

// writeToy writes the toy application into root/traces/toy, replacing the
// files named in override (an empty content removes the file).
func writeToy(t *testing.T, root string, override map[string]string) string {
	t.Helper()
	files := map[string]string{
		"placements.csv":     toyPlacements,
		"scalability.csv":    toyScalability,
		"validation-16.csv":  toyValidation16,
		"validation-64.csv":  toyValidation64,
		"../philly.csv":      "timestamp,duration\n", // ignored by Load
		"../notes/README.md": "not an application\n",
	}
	for k, v := range override {
		files[k] = v
	}
	dir := filepath.Join(root, "traces", "toy")
	for name, content := range files {
		path := filepath.Join(dir, name)
		if content == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadToy(t *testing.T) {
	root := t.TempDir()
	writeToy(t, root, nil)
	for _, dir := range []string{root, filepath.Join(root, "traces")} {
		set, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := set.Names(); len(got) != 1 || got[0] != "toy" {
			t.Fatalf("apps %v, want [toy]", got)
		}
		app := set.Apps["toy"]
		if app.Limits.InitBatch != 16 || app.Limits.MaxBatch != 64 || app.Limits.MinLocal != 8 || app.Limits.MaxLocal != 16 {
			t.Errorf("limits %+v", app.Limits)
		}
		if app.Epochs != 2 || app.FixedBatch != 0 {
			t.Errorf("epochs %d fixed %d", app.Epochs, app.FixedBatch)
		}
		if app.Target() != 200 {
			t.Errorf("target %v, want 200 (min over runs of the last row)", app.Target())
		}
	}
}

func TestCSVFlexibleLayout(t *testing.T) {
	// Columns in another order, an extra column, CRLF line ends, a byte
	// order mark, spaces and blank lines are all accepted.
	data := "\xef\xbb\xbfsync_time, extra ,local_bsz,step_time,placement\r\n" +
		"0.001,x,8,0.1,1\r\n\r\n" +
		" 0.01 ,y, 16 ,0.2, 21\r\n"
	rows, err := ParsePlacements("p.csv", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Local != 16 || rows[1].Sync != 0.01 || placementKey(rows[1].Placement) != "12" {
		t.Fatalf("rows %+v", rows)
	}
	if rows[1].Line != 4 {
		t.Errorf("line %d, want 4", rows[1].Line)
	}
}

// TestMalformedInputs: every broken input gives one error that names the
// file and the line (and the column for a bad cell).
func TestMalformedInputs(t *testing.T) {
	cases := []struct {
		name     string
		override map[string]string
		where    string // regexp the error must match (file:line[:col])
		what     string // substring of the message
	}{
		{"missing column", map[string]string{"placements.csv": "placement,local_bsz,step_time\n1,8,0.1\n"},
			`placements\.csv:1: `, `missing column "sync_time"`},
		{"non-numeric", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0.1,0.001\n1,abc,0.1,0.001\n"},
			`placements\.csv:3:3: `, `local_bsz: "abc" is not a number`},
		{"NaN", map[string]string{"scalability.csv": "num_nodes,num_replicas,local_bsz,step_time,sync_time\n4,4,8,NaN,0.3\n"},
			`scalability\.csv:2:7: `, `step_time: "NaN" is not a finite number`},
		{"Inf", map[string]string{"validation-16.csv": "progress,iteration,metric,grad_sqr,grad_var\n100,100,0.5,+Inf,1\n"},
			`validation-16\.csv:2:13: `, `grad_sqr: "+Inf" is not a finite number`},
		{"negative time", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,-0.1,0.001\n"},
			`placements\.csv:2:5: `, `step_time: -0.1 must be positive`},
		{"zero time", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0,0\n"},
			`placements\.csv:2:5: `, `step_time: 0 must be positive`},
		{"negative sync", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0.1,-1e-3\n"},
			`placements\.csv:2:9: `, `sync_time: -0.001 must not be negative`},
		{"sync above step", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0.1,0.2\n"},
			`placements\.csv:2:9: `, `sync_time: 0.2 exceeds step_time 0.1`},
		{"fractional local", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8.5,0.1,0.01\n"},
			`placements\.csv:2:3: `, `local_bsz: 8.5 is not a whole number`},
		{"fractional local in scalability", map[string]string{"scalability.csv": "num_nodes,num_replicas,local_bsz,step_time,sync_time\n4,4,8.5,0.4,0.3\n"},
			`scalability\.csv:2:5: `, `local_bsz: 8.5 is not a whole number`},
		{"time with digit separators", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,1_0,0.01\n"},
			`placements\.csv:2:5: `, `step_time: "1_0" is not a plain decimal number`},
		{"hexadecimal time", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0x1p-4,0.01\n"},
			`placements\.csv:2:5: `, `step_time: "0x1p-4" is not a plain decimal number`},
		{"zero local", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,0,0.1,0.01\n"},
			`placements\.csv:2:3: `, `local_bsz: 0 must be positive`},
		{"placement digit 0", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1,8,0.1,0.001\n102,8,0.3,0.1\n"},
			`placements\.csv:3:1: `, `digit 0 at position 2`},
		{"placement not digits", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n1.5,8,0.1,0.001\n"},
			`placements\.csv:2:1: `, `is not a placement`},
		{"duplicate rotation", map[string]string{"placements.csv": "placement,local_bsz,step_time,sync_time\n12,8,0.1,0.001\n21,8,0.1,0.001\n"},
			`placements\.csv:3: `, `duplicate row for placement 12 at local_bsz 8 (first at line 2)`},
		{"fractional nodes", map[string]string{"scalability.csv": "num_nodes,num_replicas,local_bsz,step_time,sync_time\n4.5,8,8,0.4,0.3\n"},
			`scalability\.csv:2:1: `, `num_nodes: 4.5 is not a whole number`},
		{"fewer replicas than nodes", map[string]string{"scalability.csv": "num_nodes,num_replicas,local_bsz,step_time,sync_time\n4,3,8,0.4,0.3\n"},
			`scalability\.csv:2:3: `, `3 replicas cannot span 4 nodes`},
		{"short row", map[string]string{"scalability.csv": "num_nodes,num_replicas,local_bsz,step_time,sync_time\n4,4,8,0.4\n"},
			`scalability\.csv:2: `, `column "sync_time" is missing`},
		{"empty cell", map[string]string{"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n101,,0.45,2.2,1.5\n"},
			`validation-64\.csv:2:5: `, `iteration: empty cell`},
		{"negative grad_var", map[string]string{"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n101,30,0.45,2.2,-1.5\n"},
			`validation-64\.csv:2:17: `, `grad_var: -1.5 must not be negative`},
		{"progress decreases", map[string]string{"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n101,30,0.45,2.2,1.5\n90,55,0.69,1.1,3.0\n"},
			`validation-64\.csv:3:1: `, `progress: 90 is less than the previous row's 101`},
		{"progress all zero", map[string]string{"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n0,0,0.45,2.2,1.5\n0,10,0.5,2.2,1.5\n"},
			`validation-64\.csv:3:1: `, `progress: 0 on every row: training never progresses`},
		{"target below an iteration", map[string]string{"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n1e-306,1,0.45,2.2,1.5\n1e-305,2,0.5,2.2,1.5\n"},
			`validation-64\.csv:3:1: `, `progress: the last row's progress 1e-305 (the target) is below 1 iteration at the initial batch size`},
		{"bad quote", map[string]string{"validation-64.csv": "progress,iteration,metric,grad_sqr,grad_var\n101,30,\"0.45,2.2,1.5\n"},
			`validation-64\.csv:2:\d+: `, `quote`},
		{"empty file", map[string]string{"scalability.csv": "\n"},
			`scalability\.csv:1: `, `empty file`},
		{"header only", map[string]string{"validation-16.csv": "progress,iteration,metric,grad_sqr,grad_var\n"},
			`validation-16\.csv:1: `, `no data rows`},
		{"duplicate header", map[string]string{"placements.csv": "placement,local_bsz,step_time,step_time,sync_time\n1,8,0.1,0.1,0.001\n"},
			`placements\.csv:1:31: `, `column "step_time" appears twice`},
		{"bad validation name", map[string]string{"validation-big.csv": toyValidation16},
			`validation-big\.csv: `, `validation-<batch size>.csv`},
		{"duplicate validated batch", map[string]string{"validation-016.csv": toyValidation16},
			`validation-16\.csv: `, `batch size 16 is also validated by`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeToy(t, root, c.override)
			_, err := Load(root)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := err.Error()
			if !regexp.MustCompile(c.where).MatchString(msg) || !strings.Contains(msg, c.what) {
				t.Fatalf("error %q\nwant position /%s/ and %q", msg, c.where, c.what)
			}
			if strings.Count(msg, "\n") > 0 {
				t.Errorf("error spans several lines: %q", msg)
			}
		})
	}
}

func TestMissingFiles(t *testing.T) {
	cases := []struct {
		name   string
		remove []string
		want   string
	}{
		{"placements", []string{"placements.csv"}, "placements.csv: missing file"},
		{"validation", []string{"validation-16.csv", "validation-64.csv"}, "missing file: no validation-<batch>.csv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := writeToy(t, root, nil)
			for _, f := range c.remove {
				if err := os.Remove(filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(root)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %v, want one naming %s and %q", err, dir, c.want)
			}
		})
	}
	// scalability.csv is optional.
	root := t.TempDir()
	dir := writeToy(t, root, nil)
	if err := os.Remove(filepath.Join(dir, "scalability.csv")); err != nil {
		t.Fatal(err)
	}
	set, err := Load(root)
	if err != nil {
		t.Fatalf("without scalability.csv: %v", err)
	}
	if step, sync := set.Apps["toy"].Truth.Step([]int{2, 2, 2}, 8); !(step > 0) || sync > step {
		t.Errorf("Step on 3 nodes without scalability data = %v, %v", step, sync)
	}
	// No application at all, and a folder that does not exist.
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no application folders") {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := Load(filepath.Join(root, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing folder: %v", err)
	}
}

func TestNormalizePlacement(t *testing.T) {
	cases := map[string][]int{
		"1244":  {4, 1, 2, 4},
		"1244:": {0, 2, 4, 0, 4, 1},
		"123":   {2, 3, 1},
		"132":   {1, 3, 2},
		"11":    {1, 1},
		"":      {0, 0},
		"4[12]": {12, 4},
	}
	for want, in := range cases {
		want = strings.TrimSuffix(want, ":")
		orig := append([]int(nil), in...)
		if got := placementKey(NormalizePlacement(in)); got != want {
			t.Errorf("NormalizePlacement(%v) = %s, want %s", in, got, want)
		}
		for i := range in {
			if in[i] != orig[i] {
				t.Fatalf("NormalizePlacement modified its input")
			}
		}
	}
}
