package outputs

import (
	"fmt"
	"strings"
)

// SchemaVersion is the version of the output tables' schema (Tables). It
// changes whenever a table gains, loses or renames a column or changes a
// column's type or nullability; each Parquet file records it as the
// key-value metadata polluxsim.schema_version.
const SchemaVersion = 3

// SQL type names of output columns, as DuckDB reports them.
const (
	TypeString = "VARCHAR"
	TypeInt    = "BIGINT"
	TypeFloat  = "DOUBLE"
	TypeBool   = "BOOLEAN"
)

// ColumnDoc documents one column of an output table.
type ColumnDoc struct {
	Name string
	// Type is TypeString, TypeInt, TypeFloat or TypeBool.
	Type string
	// Nullable columns hold null where the value does not apply or was not
	// measured; the others never do.
	Nullable bool
	// Unit is the column's unit ("" for identifiers and plain counts); it is
	// also stored as the Arrow field metadata "unit".
	Unit string
	Doc  string
	// Conditional columns are in a file only when one of its rows has
	// them (Field.When); the others are in every file of the table.
	Conditional bool `json:",omitempty"`
}

// TableDoc documents one output table.
type TableDoc struct {
	File string
	// Where says which command writes it: "run", "sweep" or "run, sweep".
	Where   string
	Doc     string
	Columns []ColumnDoc
}

// Column returns the documented column called name.
func (t *TableDoc) Column(name string) (ColumnDoc, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return ColumnDoc{}, false
}

// Tables documents every output table, in documentation order; each is
// derived from its declaration (JobsTable, RoundsTable, ClusterTable,
// TypesTable, NodesTable, ResultsTable, AppsTable).
func Tables() []TableDoc {
	return []TableDoc{JobsTable.Schema(), RoundsTable.Schema(), ClusterTable.Schema(), TypesTable.Schema(), NodesTable.Schema(), ResultsTable.Schema(), AppsTable.Schema()}
}

// Schema returns the documentation of the table in file.
func Schema(file string) *TableDoc {
	for _, t := range Tables() {
		if t.File == file {
			return &t
		}
	}
	panic("experiments: no table " + file) // a programming error: file names are constants
}

// SchemaMarkdown renders Tables as Markdown, one section per table.
func SchemaMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Schema version %d.\n", SchemaVersion)
	for _, t := range Tables() {
		fmt.Fprintf(&b, "\n### %s\n\n%s; written by %s.\n\n", t.File, capitalise(t.Doc), t.Where)
		b.WriteString("| column | type | null | unit | meaning |\n|---|---|---|---|---|\n")
		for _, c := range t.Columns {
			null := "no"
			if c.Nullable {
				null = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.Name, c.Type, null, c.Unit, c.Doc)
		}
	}
	return b.String()
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
