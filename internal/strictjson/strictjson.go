// Package strictjson decodes the JSON polluxsim reads (experiment specs,
// baselines, the service's request bodies, the external policy's
// messages) strictly: encoding/json matches keys case-insensitively
// ("Cells" fills "cells") and keeps the last of duplicate keys, so that a
// misspelt or repeated key passes silently. Decode refuses both, as well
// as unknown keys, data after the value and arrays and objects nested
// deeper than MaxDepth, at a cost linear in the input; a UTF-8 byte-order
// mark at the start is skipped (an editor's, which encoding/json reports
// as "invalid character 'ï'"). A value of the wrong type (a string where
// a number is expected) is reported at its path, in one line
// ("jobs[3].node_unit: want an integer, got a string") rather than in
// encoding/json's words about Go's struct fields.
package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// bom is the UTF-8 byte-order mark.
var bom = []byte("\xef\xbb\xbf")

// TrimBOM returns data without a leading UTF-8 byte-order mark.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// Decode decodes the single JSON value data into v (a pointer). Every
// object key must be unique within its object, and every key of an object
// decoded into a struct must be one of the struct's JSON names exactly
// (case included); values decoded by their own UnmarshalJSON, into maps
// or into json.RawMessage are checked for duplicates only. Nesting deeper
// than MaxDepth and data after the value are errors. A value that does not
// fit its field's type is an error naming the value's path (typeError).
func Decode(data []byte, v any) error {
	data = TrimBOM(data)
	if err := CheckKeys(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return Explain(data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// MaxDepth is the deepest nesting of arrays and objects, one within
// another, that Decode and CheckKeys accept. The deepest JSON polluxsim
// ships is 8 levels (its experiment specs 7); 64 leaves room for
// free-form policy options, and a hostile input (60,000 "[" in 60 KB) is
// refused after 65 steps. encoding/json's own limit, 10,000, is for any
// data.
const MaxDepth = 64

// CheckKeys checks the keys of the JSON value data against type t (see
// Decode) without decoding it, and its nesting against MaxDepth (the
// error names the line and column where the nesting passes it). Syntax
// errors are left to the decoder: it returns nil on one. It reads data
// once, allocating only for keys: its cost is linear in the size of data.
func CheckKeys(data []byte, t reflect.Type) error {
	w := walker{data: TrimBOM(data)}
	if err := w.walk(t); err != errSyntax {
		return err
	}
	return nil
}

// checkError is a problem CheckKeys reports (a key, the nesting), at a
// path such as "cells[2].options" or a place in the text.
type checkError struct{ msg string }

func (e *checkError) Error() string { return e.msg }

// errSyntax stops a walk at data that is not JSON, which the decoder
// then reports.
var errSyntax = errors.New("not JSON")

var (
	rawType         = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// A walker reads one JSON value from data, byte by byte. It keeps the
// path to the value being read as a stack of steps, one per level, and
// writes it out only for an error, so that reading is linear in the
// input.
type walker struct {
	data []byte
	pos  int // the next byte to read
	path []step
	// at, when positive, is an offset whose value's path to find: the
	// innermost value starting before it and ending at or after it is
	// found, its path written out in where.
	at    int
	found bool
	where string
}

// step is one level of a path: an object's key, or an array's index when
// index ≥ 0.
type step struct {
	key   string
	index int
}

// pathString is the path written out: "cells[2].options", or "" at the
// top.
func (w *walker) pathString() string {
	var b strings.Builder
	for _, s := range w.path {
		if s.index >= 0 {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// keyErr is a problem with a key of the object at the current path.
func (w *walker) keyErr(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if p := w.pathString(); p != "" {
		msg = p + ": " + msg
	}
	return &checkError{msg}
}

// depthErr says that the array or object opening at w.pos is nested
// deeper than MaxDepth, naming its line and column (in bytes, from 1).
func (w *walker) depthErr() error {
	before := w.data[:w.pos]
	line := 1 + bytes.Count(before, []byte{'\n'})
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return &checkError{fmt.Sprintf("line %d, column %d: arrays and objects nested deeper than %d levels", line, col, MaxDepth)}
}

// space skips white space and returns the next byte (0 at the end).
func (w *walker) space() byte {
	for ; w.pos < len(w.data); w.pos++ {
		switch c := w.data[w.pos]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c
		}
	}
	return 0
}

// walk reads one value, checking it against t (nil: anything).
func (w *walker) walk(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t == rawType || reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType) || t.Kind() == reflect.Interface) {
		t = nil // its own decoding: duplicates only
	}
	c := w.space()
	start := w.pos
	var err error
	switch c {
	case '{', '[':
		if len(w.path) >= MaxDepth { // one step per enclosing level
			return w.depthErr()
		}
		w.pos++
		if c == '{' {
			err = w.object(t)
		} else {
			err = w.array(t)
		}
	case '"':
		_, err = w.str(false)
	default:
		err = w.literal()
	}
	if err == nil && !w.found && start < w.at && w.at <= w.pos {
		w.found, w.where = true, w.pathString()
	}
	return err
}

// object reads the members of an object after its "{".
func (w *walker) object(t reflect.Type) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = jsonFields(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	if w.space() == '}' {
		w.pos++
		return nil
	}
	seen := map[string]bool{}
	for {
		if w.space() != '"' {
			return errSyntax
		}
		key, err := w.str(true)
		if err != nil {
			return err
		}
		if w.space() != ':' {
			return errSyntax
		}
		w.pos++
		if seen[key] {
			return w.keyErr("duplicate field %q", key)
		}
		seen[key] = true
		next := elem
		if fields != nil {
			ft, ok := fields[key]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, key) {
						return w.keyErr("unknown field %q (keys are case-sensitive: %q)", key, name)
					}
				}
				return w.keyErr("unknown field %q", key)
			}
			next = ft
		}
		w.path = append(w.path, step{key: key, index: -1})
		if err := w.walk(next); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
		switch w.space() {
		case ',':
			w.pos++
		case '}':
			w.pos++
			return nil
		default:
			return errSyntax
		}
	}
}

// array reads the elements of an array after its "[".
func (w *walker) array(t reflect.Type) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	if w.space() == ']' {
		w.pos++
		return nil
	}
	w.path = append(w.path, step{})
	for i := 0; ; i++ {
		w.path[len(w.path)-1].index = i
		if err := w.walk(elem); err != nil {
			return err
		}
		switch w.space() {
		case ',':
			w.pos++
		case ']':
			w.pos++
			w.path = w.path[:len(w.path)-1]
			return nil
		default:
			return errSyntax
		}
	}
}

// str reads a string at w.pos; as a key, it returns its value as the
// decoder reads it (escapes resolved, invalid UTF-8 replaced).
func (w *walker) str(key bool) (string, error) {
	start := w.pos
	plain := true // no escapes, ASCII only
	for w.pos++; w.pos < len(w.data); w.pos++ {
		switch c := w.data[w.pos]; {
		case c == '"':
			w.pos++
			if !key {
				return "", nil
			}
			if plain {
				return string(w.data[start+1 : w.pos-1]), nil
			}
			var s string
			if json.Unmarshal(w.data[start:w.pos], &s) != nil {
				return "", errSyntax
			}
			return s, nil
		case c == '\\':
			plain = false
			w.pos++ // the escaped byte; the decoder checks the escape
		case c < 0x20:
			return "", errSyntax
		case c >= 0x80:
			plain = false
		}
	}
	return "", errSyntax
}

// literal reads a number, true, false or null at w.pos.
func (w *walker) literal() error {
	start := w.pos
	for ; w.pos < len(w.data); w.pos++ {
		c := w.data[w.pos]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E') {
			break
		}
	}
	switch lit := string(w.data[start:w.pos]); {
	case lit == "true" || lit == "false" || lit == "null" || isNumber(lit):
		return nil
	}
	return errSyntax
}

// isNumber says whether s is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func isNumber(s string) bool {
	digits := func() int {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	s = strings.TrimPrefix(s, "-")
	switch {
	case strings.HasPrefix(s, "0"):
		s = s[1:]
	case digits() == 0:
		return false
	}
	if strings.HasPrefix(s, ".") {
		s = s[1:]
		if digits() == 0 {
			return false
		}
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}

// jsonFields maps the JSON names of struct t's fields (embedded structs'
// included) to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, ok := out[k]; !ok {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
