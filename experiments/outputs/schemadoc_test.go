package outputs

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/outputs.md's schema section from Tables")

const (
	schemaDoc   = "../../docs/outputs.md"
	schemaBegin = "<!-- schema:begin (generated from outputs.Tables; go test ./experiments/outputs -run TestSchemaDocumented -update) -->\n"
	schemaEnd   = "<!-- schema:end -->\n"
)

// TestSchemaDocumented: docs/outputs.md holds the schema exactly as Tables
// defines it (the writers are checked against Tables as they write).
func TestSchemaDocumented(t *testing.T) {
	data, err := os.ReadFile(schemaDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, schemaBegin), strings.Index(doc, schemaEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no schema section (markers %q ... %q)", schemaDoc, schemaBegin, schemaEnd)
	}
	want := SchemaMarkdown()
	if got := doc[i+len(schemaBegin) : j]; got != want {
		if *updateDocs {
			if err := os.WriteFile(schemaDoc, []byte(doc[:i+len(schemaBegin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's schema section is out of date; run go test ./experiments/outputs -run TestSchemaDocumented -update", schemaDoc)
	}
}
