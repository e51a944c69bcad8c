package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Explain is err, an error of encoding/json decoding data, in one line
// naming the value at fault when it is a value of the wrong type (see
// typeError); other errors are returned as they are. Decode explains its
// own errors; a caller decoding with encoding/json (a message's envelope
// read before the message) explains them with this.
func Explain(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return typeError(TrimBOM(data), te)
	}
	return err
}

// typeError is encoding/json's report of a value that does not fit its
// field's type ("json: cannot unmarshal string into Go struct field
// Job.jobs.node_unit of type int") as one line naming the value's path in
// data, array indices included, what the field takes and what was there:
// "jobs[3].node_unit: want an integer, got a string".
func typeError(data []byte, te *json.UnmarshalTypeError) error {
	w := walker{data: data, at: int(te.Offset)}
	_ = w.walk(nil) // data is valid JSON: the decoder read it whole
	path := w.where
	if !w.found {
		path = te.Field // the path without indices
	}
	msg := describe(te.Type, te.Value)
	if path != "" {
		msg = path + ": " + msg
	}
	return errors.New(msg)
}

// describe says what a field of type t takes and what value (encoding/json's
// UnmarshalTypeError.Value: "string", "number", "number 1.5", "bool",
// "object", "array") it got.
func describe(t reflect.Type, value string) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := "a value of another type"
	var lo, hi string // a range of whole numbers
	if t != nil {
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			want = "an integer"
			top := uint64(1) << (t.Bits() - 1)
			lo, hi = "-"+strconv.FormatUint(top, 10), strconv.FormatUint(top-1, 10)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			want = "an integer"
			lo, hi = "0", strconv.FormatUint(math.MaxUint64>>(64-t.Bits()), 10)
		case reflect.Float32, reflect.Float64:
			want = "a number"
			if t.Kind() == reflect.Float32 {
				hi = strconv.FormatFloat(math.MaxFloat32, 'g', 4, 32)
			} else {
				hi = strconv.FormatFloat(math.MaxFloat64, 'g', 4, 64)
			}
		case reflect.String:
			want = "a string"
		case reflect.Bool:
			want = "true or false"
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.Struct, reflect.Map:
			want = "an object"
		}
	}
	num, isNum := strings.CutPrefix(value, "number ")
	switch {
	case !isNum:
		return fmt.Sprintf("want %s, got %s", want, article(value))
	case lo != "":
		if f, err := strconv.ParseFloat(num, 64); err == nil && f == math.Trunc(f) {
			return fmt.Sprintf("want %s in [%s, %s], got %s", want, lo, hi, num)
		}
		return fmt.Sprintf("want %s, got %s", want, num)
	case hi != "":
		return fmt.Sprintf("want %s of magnitude at most %s, got %s", want, hi, num)
	}
	return fmt.Sprintf("want %s, got %s", want, num)
}

// article is a JSON kind as encoding/json names it, with its article.
func article(kind string) string {
	switch kind {
	case "bool":
		return "a boolean"
	case "object", "array":
		return "an " + kind
	case "":
		return "a value"
	}
	return "a " + kind
}
