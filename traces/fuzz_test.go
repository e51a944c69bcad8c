package traces

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse feeds the workload CSV reader arbitrary input: it must never
// panic, and whatever it accepts must survive a write and a second read
// unchanged.
func FuzzParse(f *testing.F) {
	f.Add(goodCSV)
	f.Add("name,time,application,num_replicas,batch_size\na,1.5,ncf,4.0,256\nb,0,bert,1,12\n")
	f.Add("batch_size,extra,application,time,num_replicas,name\n1,x,ncf,0,1,\"a,b\"\n")
	f.Add("name,time,application,num_replicas,batch_size\nb,9,ncf,1,1\na,1,ncf,1,1\n")
	f.Add("name,time\n")
	f.Add("")
	f.Add("\ufeffname,time,application,num_replicas,batch_size\r\n\"q\"\"\",1e3,x,1,1\r\n")
	f.Add("name,time,application,num_replicas,batch_size\na,NaN,ncf,1,1\na,-0,ncf,9999999999999,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		w, warnings, err := Parse(strings.NewReader(in), "fuzz.csv", ReadOptions{})
		if err != nil {
			if w != nil || warnings != nil {
				t.Fatal("workload or warnings returned with an error")
			}
			return
		}
		if err := Validate(w, nil, 0); err != nil {
			t.Fatalf("accepted workload fails Validate: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, w); err != nil {
			t.Fatal(err)
		}
		back, _, err := Parse(bytes.NewReader(buf.Bytes()), "again.csv", ReadOptions{})
		if err != nil {
			t.Fatalf("cannot read back what was written: %v\n%s", err, buf.Bytes())
		}
		for i := range w.Jobs {
			w.Jobs[i].Line, back.Jobs[i].Line = 0, 0
		}
		if !reflect.DeepEqual(w.Jobs, back.Jobs) {
			t.Fatalf("round trip changed the jobs:\n%+v\n%+v", w.Jobs, back.Jobs)
		}
	})
}

// FuzzParsePhilly feeds the Philly table reader arbitrary input.
func FuzzParsePhilly(f *testing.F) {
	f.Add(phillyCSV)
	f.Add("timestamp,duration,num_gpus,gpu_time,cluster\n2017-02-29 07:01:55,66.0,1,66.0,a\n")
	f.Add("cluster,gpu_time,num_gpus,duration,timestamp,x\na,1,1,1,2017-10-09 07:01:55,y\n")
	f.Add("timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 24:01:55,1e400,-1,nan,\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		tab, _, err := ParsePhilly(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			return
		}
		for _, j := range tab.Jobs {
			if j.GPUs < 1 || j.Duration < 0 || j.GPUTime < 0 {
				t.Fatalf("accepted an invalid row %+v", j)
			}
		}
		// Whatever was accepted can be summarised and sampled.
		if s, err := Summarize(tab, PhillyFilter{}, 0); err == nil {
			if _, err := Generate(s, GenerateOptions{Jobs: 1, Seed: 1, Apps: formatApps()}); err != nil {
				t.Fatalf("cannot sample the summary: %v", err)
			}
		}
	})
}

// FuzzDecodePhillyLog feeds the cluster_job_log decoder arbitrary input.
func FuzzDecodePhillyLog(f *testing.F) {
	fixture, err := os.ReadFile(filepath.Join("testdata", "cluster_job_log_small.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(fixture))
	f.Add(`[{"jobid":"a","submitted_time":"2017-10-09 07:00:00","attempts":[{"start_time":"2017-10-09 07:00:00","end_time":"2017-10-09 07:00:09","detail":[{"gpus":["g"]}]}]}]`)
	f.Add(`{"jobid":"a"}` + "\n" + `{"jobid":"b","attempts":null}`)
	f.Add(`[null, 5, "x", [], {"attempts": [{"detail": [{"gpus": 3}]}]}]`)
	f.Add("[")
	f.Add("\xef\xbb\xbf[]")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		kept := 0
		rep, err := DecodePhillyLog(strings.NewReader(in), "fuzz.json", func(j PhillyJob) error {
			if j.GPUs < 1 || j.Duration < 0 || j.Line < 1 {
				t.Fatalf("emitted an invalid row %+v", j)
			}
			kept++
			return nil
		})
		if rep == nil {
			t.Fatal("no report")
		}
		dropped := 0
		for _, n := range rep.Dropped {
			dropped += n
		}
		if rep.Kept != kept || rep.Jobs != rep.Kept+dropped {
			t.Fatalf("report %+v does not add up (%d emitted)", rep, kept)
		}
		_ = err
	})
}

// FuzzParseSummary feeds the summary reader arbitrary input: whatever it
// accepts must be safe to sample.
func FuzzParseSummary(f *testing.F) {
	f.Add(defaultSummaryJSON)
	f.Add(`{"format":"polluxsim-philly-summary/1"}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSummary([]byte(in), "fuzz.json")
		if err != nil {
			return
		}
		n := min(s.Kept, 50)
		if _, err := Generate(s, GenerateOptions{Jobs: n, Seed: 1, Apps: formatApps()}); err != nil {
			t.Fatalf("cannot sample an accepted summary: %v", err)
		}
	})
}
