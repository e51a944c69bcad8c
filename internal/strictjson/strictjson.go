// Package strictjson decodes the JSON files polluxsim reads (experiment
// specs, baselines, profiles) strictly: encoding/json matches keys
// case-insensitively ("Cells" fills "cells") and keeps the last of
// duplicate keys, so that a misspelt or repeated key passes silently.
// Decode refuses both, as well as unknown keys and data after the value;
// a UTF-8 byte-order mark at the start is skipped (an editor's, which
// encoding/json reports as "invalid character 'ï'").
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
// or into json.RawMessage are checked for duplicates only. Data after the
// value is an error.
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

// CheckKeys checks the keys of the JSON value data against type t (see
// Decode) without decoding it. Syntax errors are left to the decoder: it
// returns nil on one.
func CheckKeys(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(TrimBOM(data)))
	dec.UseNumber()
	err := walk(dec, t, "")
	var ke *keyError
	if errors.As(err, &ke) {
		return err
	}
	return nil
}

// keyError is a problem with a key, at a path such as "cells[2].options".
type keyError struct{ msg string }

func (e *keyError) Error() string { return e.msg }

func keyErr(path, format string, args ...any) error {
	where := ""
	if path != "" {
		where = path + ": "
	}
	return &keyError{where + fmt.Sprintf(format, args...)}
}

var (
	rawType         = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walk reads one value from dec, checking it against t (nil: anything).
func walk(dec *json.Decoder, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t == rawType || reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType) || t.Kind() == reflect.Interface) {
		t = nil // its own decoding: duplicates only
	}
	tok, err := dec.Token()
	if err != nil {
		return err
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
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			sub := join(path, key)
			if seen[key] {
				return keyErr(path, "duplicate field %q", key)
			}
			seen[key] = true
			next := elem
			if fields != nil {
				ft, ok := fields[key]
				if !ok {
					for name := range fields {
						if strings.EqualFold(name, key) {
							return keyErr(path, "unknown field %q (keys are case-sensitive: %q)", key, name)
						}
					}
					return keyErr(path, "unknown field %q", key)
				}
				next = ft
			}
			if err := walk(dec, next, sub); err != nil {
				return err
			}
		}
		_, err = dec.Token() // '}'
		return err
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walk(dec, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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
