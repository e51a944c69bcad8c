package outputs

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Field declares one column of an output table whose rows are of type R,
// once: its name, type, nullability, unit and meaning (the documentation,
// ColumnDoc) and how a row's value is computed. The Arrow schema, the
// writers and docs/outputs.md all derive from it. Build one with Str,
// StrNull, F64, F64Null, I64, I64Null or Bool; the constructor fixes the
// type and the nullability.
type Field[R any] struct {
	doc ColumnDoc
	typ arrow.DataType
	// dict enables dictionary encoding (for repetitive strings); numeric
	// columns leave it off.
	dict bool
	// put appends row r's value (or a null) to the builder.
	put func(b array.Builder, r R)
	// only, when set, makes the column conditional (When).
	only func(r R) bool
}

// Doc is the field's documentation.
func (f Field[R]) Doc() ColumnDoc { return f.doc }

// When makes f a conditional column: a file holds it only when one of its
// rows has it (has), so that the files of runs without it (a workload
// without deadlines) are exactly what they were before it existed.
// Readers ask for such a column only where they know it is written.
func (f Field[R]) When(has func(r R) bool) Field[R] {
	f.only = has
	f.doc.Conditional = true
	return f
}

// written is the table with the conditional columns none of its n rows
// has left out; t itself when it has none.
func (t *Table[R]) written(row func(i int) R, n int) *Table[R] {
	var keep []Field[R]
	cond := false
	for _, f := range t.Fields {
		if f.only == nil {
			keep = append(keep, f)
			continue
		}
		cond = true
		for i := 0; i < n; i++ {
			if f.only(row(i)) {
				keep = append(keep, f)
				break
			}
		}
	}
	if !cond {
		return t
	}
	c := *t
	c.Fields = keep
	return &c
}

// stringDict is the in-memory type of string columns: dictionary-encoded,
// so that readers that keep Arrow's types (pandas through pyarrow, Polars)
// get categoricals; Parquet stores plain (dictionary-encoded) strings.
var stringDict = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// Str declares a string column that is never null.
func Str[R any](name, unit, doc string, get func(R) string) Field[R] {
	return Field[R]{ColumnDoc{name, TypeString, false, unit, doc, false}, stringDict, true, func(b array.Builder, r R) {
		b.(*array.BinaryDictionaryBuilder).AppendString(get(r)) //nolint:errcheck // a string builder takes strings
	}, nil}
}

// StrNull declares a nullable string column: get's ok = false writes a
// null.
func StrNull[R any](name, unit, doc string, get func(R) (string, bool)) Field[R] {
	return Field[R]{ColumnDoc{name, TypeString, true, unit, doc, false}, stringDict, true, func(b array.Builder, r R) {
		if v, ok := get(r); ok {
			b.(*array.BinaryDictionaryBuilder).AppendString(v) //nolint:errcheck // a string builder takes strings
		} else {
			b.AppendNull()
		}
	}, nil}
}

// F64 declares a float column that is never null.
func F64[R any](name, unit, doc string, get func(R) float64) Field[R] {
	return Field[R]{ColumnDoc{name, TypeFloat, false, unit, doc, false}, arrow.PrimitiveTypes.Float64, false, func(b array.Builder, r R) {
		b.(*array.Float64Builder).Append(get(r))
	}, nil}
}

// F64Null declares a nullable float column: get's ok = false, or a NaN,
// writes a null.
func F64Null[R any](name, unit, doc string, get func(R) (float64, bool)) Field[R] {
	return Field[R]{ColumnDoc{name, TypeFloat, true, unit, doc, false}, arrow.PrimitiveTypes.Float64, false, func(b array.Builder, r R) {
		if v, ok := get(r); ok && !math.IsNaN(v) {
			b.(*array.Float64Builder).Append(v)
		} else {
			b.AppendNull()
		}
	}, nil}
}

// I64 declares an integer column that is never null.
func I64[R any](name, unit, doc string, get func(R) int64) Field[R] {
	return Field[R]{ColumnDoc{name, TypeInt, false, unit, doc, false}, arrow.PrimitiveTypes.Int64, false, func(b array.Builder, r R) {
		b.(*array.Int64Builder).Append(get(r))
	}, nil}
}

// I64Null declares a nullable integer column: get's ok = false writes a
// null.
func I64Null[R any](name, unit, doc string, get func(R) (int64, bool)) Field[R] {
	return Field[R]{ColumnDoc{name, TypeInt, true, unit, doc, false}, arrow.PrimitiveTypes.Int64, false, func(b array.Builder, r R) {
		if v, ok := get(r); ok {
			b.(*array.Int64Builder).Append(v)
		} else {
			b.AppendNull()
		}
	}, nil}
}

// Bool declares a boolean column that is never null.
func Bool[R any](name, unit, doc string, get func(R) bool) Field[R] {
	return Field[R]{ColumnDoc{name, TypeBool, false, unit, doc, false}, arrow.FixedWidthTypes.Boolean, false, func(b array.Builder, r R) {
		b.(*array.BooleanBuilder).Append(get(r))
	}, nil}
}

// Lift declares the same column over rows of another type, whose value is
// that of of(row).
func Lift[R, S any](f Field[S], of func(R) S) Field[R] {
	l := Field[R]{f.doc, f.typ, f.dict, func(b array.Builder, r R) { f.put(b, of(r)) }, nil}
	if f.only != nil {
		l.only = func(r R) bool { return f.only(of(r)) }
	}
	return l
}

// Table declares an output table whose rows are of type R: its file, who
// writes it, what a row is, and its columns in order. Its documentation
// (Schema), Arrow schema and writer (WriteTable) derive from Fields, so a
// column is added to a table by adding one Field.
type Table[R any] struct {
	File string
	// Where says which command writes it: "run", "sweep" or "run, sweep".
	Where  string
	Doc    string
	Fields []Field[R]
}

// Schema is the table's documentation.
func (t *Table[R]) Schema() TableDoc {
	d := TableDoc{File: t.File, Where: t.Where, Doc: t.Doc, Columns: make([]ColumnDoc, len(t.Fields))}
	for i, f := range t.Fields {
		d.Columns[i] = f.doc
	}
	return d
}

// arrowFields are the Arrow fields of the table's columns: their types,
// nullability, and units as the field metadata "unit".
func (t *Table[R]) arrowFields() []arrow.Field {
	fields := make([]arrow.Field, len(t.Fields))
	for i, f := range t.Fields {
		fields[i] = arrow.Field{Name: f.doc.Name, Type: f.typ, Nullable: f.doc.Nullable}
		if f.doc.Unit != "" {
			fields[i].Metadata = arrow.NewMetadata([]string{"unit"}, []string{f.doc.Unit})
		}
	}
	return fields
}

// columns binds the table's fields to rows: row i is row(i).
func (t *Table[R]) columns(row func(i int) R) []column {
	cols := make([]column, len(t.Fields))
	for k, f := range t.Fields {
		cols[k] = column{name: f.doc.Name, dict: f.dict, put: func(b array.Builder, i int) { f.put(b, row(i)) }}
	}
	return cols
}
