// Package strictjson decodes the JSON files polluxsim reads (experiment
// specs, baselines, profiles) strictly: encoding/json matches keys
// case-insensitively ("Cells" fills "cells") and keeps the last of
// duplicate keys, so that a misspelt or repeated key passes silently.
// Decode refuses both, as well as unknown keys, data after the value and
// arrays and objects nested deeper than MaxDepth (60,000 "[" took the
// path kept per level to gigabytes); a UTF-8 byte-order mark at the start
// is skipped (an editor's, which encoding/json reports as "invalid
// character 'ï'").
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
// than MaxDepth and data after the value are errors.
func Decode(data []byte, v any) error {
	data = TrimBOM(data)
	if err := CheckKeys(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
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
// errors are left to the decoder: it returns nil on one. Its cost is
// linear in the size of data.
func CheckKeys(data []byte, t reflect.Type) error {
	data = TrimBOM(data)
	w := walker{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	w.dec.UseNumber()
	err := w.walk(t)
	var ce *checkError
	if errors.As(err, &ce) {
		return err
	}
	return nil
}

// checkError is a problem CheckKeys reports (a key, the nesting), at a
// path such as "cells[2].options" or a place in the text.
type checkError struct{ msg string }

func (e *checkError) Error() string { return e.msg }

var (
	rawType         = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// A walker reads one JSON value token by token. It keeps the path to the
// value being read as a stack of steps, one per level, so that reading is
// linear in the input; the path is written out only for an error.
type walker struct {
	dec  *json.Decoder
	data []byte // the decoder's input, for a position in an error
	path []step
}

// step is one level of a path: an object's key, or an array's index when
// key is empty and index ≥ 0.
type step struct {
	key   string
	index int
}

// where is the path written out: "cells[2].options", or "" at the top.
func (w *walker) where() string {
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
	if p := w.where(); p != "" {
		msg = p + ": " + msg
	}
	return &checkError{msg}
}

// depthErr says that the array or object just opened is nested deeper
// than MaxDepth, naming its line and column (in bytes, from 1).
func (w *walker) depthErr() error {
	off := int(w.dec.InputOffset()) - 1 // the opening bracket
	line := 1 + bytes.Count(w.data[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(w.data[:off], '\n')
	return &checkError{fmt.Sprintf("line %d, column %d: arrays and objects nested deeper than %d levels", line, col, MaxDepth)}
}

// walk reads one value, checking it against t (nil: anything).
func (w *walker) walk(t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t == rawType || reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType) || t.Kind() == reflect.Interface) {
		t = nil // its own decoding: duplicates only
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok == json.Delim('{') || tok == json.Delim('[') {
		// The path holds one step per enclosing array or object.
		if len(w.path) >= MaxDepth {
			return w.depthErr()
		}
	}
	switch tok {
	case json.Delim('{'):
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
		seen := map[string]bool{}
		for w.dec.More() {
			kt, err := w.dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
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
			err = w.walk(next)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
		_, err = w.dec.Token() // '}'
		return err
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		w.path = append(w.path, step{index: 0})
		for i := 0; w.dec.More(); i++ {
			w.path[len(w.path)-1].index = i
			if err := w.walk(elem); err != nil {
				return err
			}
		}
		w.path = w.path[:len(w.path)-1]
		_, err = w.dec.Token() // ']'
		return err
	}
	return nil
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
