package policies

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/kv"
	"github.com/polluxsim/polluxsim/internal/strictjson"
)

// OptionSet is a policy's complete, effective options as a canonical JSON
// object: every option in declaration order, defaults included. Two runs
// with equal option sets schedule alike; it is comparable with == and is
// what run records store. The empty OptionSet means "the defaults" and is
// only an input to Resolve and Build.
type OptionSet string

// MarshalJSON writes the set as a JSON object ({} when empty).
func (s OptionSet) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("{}"), nil
	}
	return []byte(s), nil
}

// UnmarshalJSON reads a JSON object, keeping it compact so that a set read
// back equals the one written.
func (s *OptionSet) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*s = ""
		return nil
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("policy options: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return err
	}
	*s = OptionSet(buf.String())
	return nil
}

// Value returns the JSON-decoded value of one option (float64, bool or
// string), if the set has it.
func (s OptionSet) Value(key string) (any, bool) {
	var m map[string]any
	if s == "" || json.Unmarshal([]byte(s), &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}

// OptionDoc describes one option of a policy.
type OptionDoc struct {
	Key     string // as given to --policy-opt and in spec files
	Type    string // number, integer, unsigned, bool or string
	Default string // the default, as it would be written on the command line
	Doc     string // one line
	// ServeMax, when not empty, is the largest value a caller of the
	// service may set (the field's `serve:"N"` tag): an option whose cost
	// in memory or time grows with it (see CheckServeBounds).
	ServeMax string
}

// DescribeOptions is Describe for a registration that need not be in the
// policy registry (another registry reusing the options machinery). An
// option whose field is tagged `for:"name,..."` (one of a family of
// policies sharing an options struct) is listed only for those policies.
func DescribeOptions(r Registration) ([]OptionDoc, error) {
	if r.Defaults == nil {
		return nil, nil
	}
	v := r.Defaults()
	fields, err := optionFields(v)
	if err != nil {
		return nil, err
	}
	rv := reflect.ValueOf(v).Elem()
	var docs []OptionDoc
	for _, f := range fields {
		if f.only != nil && !slices.Contains(f.only, r.Name) {
			continue
		}
		d := OptionDoc{Key: f.key, Type: typeName(f.kind), Default: fmt.Sprint(rv.Field(f.index).Interface()), Doc: f.doc}
		if f.serveMax != nil {
			d.ServeMax = strconv.FormatFloat(*f.serveMax, 'g', -1, 64)
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// ResolveOptions is Resolve for a registration that need not be in the
// policy registry (another registry reusing the options machinery).
func ResolveOptions(r Registration, base OptionSet, layers ...any) (OptionSet, error) {
	v, err := decode(r, base)
	if err != nil {
		return "", err
	}
	for _, layer := range layers {
		switch l := layer.(type) {
		case json.RawMessage:
			err = applyJSON(r, v, l)
		case []string:
			err = applyStrings(r, v, l)
		default:
			err = fmt.Errorf("internal error: option layer of type %T", layer)
		}
		if err != nil {
			return "", err
		}
		if err := validate(r, v); err != nil {
			return "", err
		}
	}
	return encode(v)
}

// CheckServeBounds reports the first option of s above its serve bound
// (the field's `serve:"N"` tag): options whose memory or time grow with
// their value, which a service bounds for callers it does not trust
// (polluxsim serve refuses them unless its operator lifts the bounds).
func CheckServeBounds(r Registration, s OptionSet) error {
	if r.Defaults == nil {
		return nil
	}
	v, err := decode(r, s)
	if err != nil {
		return err
	}
	fields, err := optionFields(v)
	if err != nil {
		return err
	}
	rv := reflect.ValueOf(v).Elem()
	for _, f := range fields {
		if f.serveMax == nil {
			continue
		}
		var x float64
		switch fv := rv.Field(f.index); f.kind {
		case reflect.Int:
			x = float64(fv.Int())
		case reflect.Uint64:
			x = float64(fv.Uint())
		default:
			x = fv.Float()
		}
		if x > *f.serveMax {
			return fmt.Errorf("%s: option %s is %v, above %v, the most a service caller may set (its memory and time grow with it)",
				r.label(), f.key, rv.Field(f.index).Interface(), *f.serveMax)
		}
	}
	return nil
}

// DecodeOptions returns the options value of a set for r: a new pointer
// of its Defaults' type with the set's values on top, validated (nil for a
// registration without options).
func DecodeOptions(r Registration, s OptionSet) (any, error) { return decode(r, s) }

// decode builds the options value of a set: the defaults with the set's
// values on top, validated.
func decode(r Registration, s OptionSet) (any, error) {
	if r.Defaults == nil {
		if s != "" && s != "{}" {
			return nil, fmt.Errorf("%s has no options, got %s", r.label(), s)
		}
		return nil, nil
	}
	v := r.Defaults()
	if s != "" {
		if err := applyJSON(r, v, json.RawMessage(s)); err != nil {
			return nil, err
		}
	}
	if err := validate(r, v); err != nil {
		return nil, err
	}
	return v, nil
}

func validate(r Registration, v any) error {
	if val, ok := v.(interface{ Validate() error }); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("%s: %w", r.label(), err)
		}
	}
	return nil
}

// applyJSON sets the options of a JSON object on v, strictly.
func applyJSON(r Registration, v any, raw json.RawMessage) error {
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%s: options must be a JSON object: %w", r.label(), strictjson.Explain(raw, err))
	}
	if dec.More() {
		return fmt.Errorf("%s: options: text after the JSON object", r.label())
	}
	if len(m) == 0 {
		return nil
	}
	if v == nil {
		return fmt.Errorf("%s has no options", r.label())
	}
	fields, _ := optionFields(v)
	rv := reflect.ValueOf(v).Elem()
	for _, key := range sortedKeys(m) {
		f, ok := findField(fields, key)
		if !ok {
			return unknownOption(r, fields, key)
		}
		ptr := reflect.New(rv.Field(f.index).Type())
		if err := json.Unmarshal(m[key], ptr.Interface()); err != nil {
			return fmt.Errorf("%s: option %s: %s is not a valid %s", r.label(), key, m[key], typeName(f.kind))
		}
		if f.kind == reflect.Float64 {
			if x := ptr.Elem().Float(); math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s: option %s must be finite", r.label(), key)
			}
		}
		rv.Field(f.index).Set(ptr.Elem())
	}
	return nil
}

// applyStrings sets "key=value" options on v.
func applyStrings(r Registration, v any, kvs []string) error {
	var fields []optionField
	if v != nil {
		fields, _ = optionFields(v)
	}
	for _, item := range kvs {
		p, err := kv.Cut(item)
		if err != nil {
			return fmt.Errorf("%s: option %q must be key=value", r.label(), item)
		}
		key, val := p.Key, p.Value
		f, ok := findField(fields, key)
		if !ok {
			return unknownOption(r, fields, key)
		}
		if err := setString(reflect.ValueOf(v).Elem().Field(f.index), f.kind, val); err != nil {
			return fmt.Errorf("%s: option %s: %q is not a valid %s", r.label(), key, val, typeName(f.kind))
		}
	}
	return nil
}

func setString(field reflect.Value, kind reflect.Kind, s string) error {
	switch kind {
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.Contains(s, "_") {
			return errors.New("bad number")
		}
		field.SetFloat(x)
	case reflect.Int:
		x, err := strconv.ParseInt(s, 10, 0)
		if err != nil {
			return err
		}
		field.SetInt(x)
	case reflect.Uint64:
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return err
		}
		field.SetUint(x)
	case reflect.Bool:
		x, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		field.SetBool(x)
	case reflect.String:
		field.SetString(s)
	}
	return nil
}

func unknownOption(r Registration, fields []optionField, key string) error {
	if len(fields) == 0 {
		return fmt.Errorf("%s has no options (got %q)", r.label(), key)
	}
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return fmt.Errorf("%s has no option %q (valid: %s)", r.label(), key, strings.Join(keys, ", "))
}

// encode writes every option of v, in declaration order, as a compact JSON
// object.
func encode(v any) (OptionSet, error) {
	if v == nil {
		return "{}", nil
	}
	fields, err := optionFields(v)
	if err != nil {
		return "", err
	}
	rv := reflect.ValueOf(v).Elem()
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		val, err := json.Marshal(rv.Field(f.index).Interface())
		if err != nil {
			return "", err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return OptionSet(b.String()), nil
}

// optionField is one tagged field of an options struct.
type optionField struct {
	key, doc string
	index    int
	kind     reflect.Kind
	// only, from the field's `for:"name,name"` tag, names the policies of
	// a family sharing one options struct that the option applies to
	// (empty: all).
	only []string
	// serveMax, from the field's `serve:"N"` tag, is the largest value a
	// service caller may set (nil: no bound beyond Validate's).
	serveMax *float64
}

// optionFields lists the tagged fields of a pointer to an options struct.
func optionFields(v any) ([]optionField, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("options must be a pointer to a struct, got %T", v)
	}
	t := rv.Elem().Type()
	var out []optionField
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		key := sf.Tag.Get("option")
		if key == "" {
			continue
		}
		switch sf.Type.Kind() {
		case reflect.Float64, reflect.Int, reflect.Uint64, reflect.Bool, reflect.String:
		default:
			return nil, fmt.Errorf("option %s: unsupported type %s", key, sf.Type)
		}
		if !sf.IsExported() || seen[key] || sf.Tag.Get("doc") == "" {
			return nil, fmt.Errorf("option %s must be an exported field, unique, with a doc tag", key)
		}
		seen[key] = true
		f := optionField{key: key, doc: sf.Tag.Get("doc"), index: i, kind: sf.Type.Kind()}
		if only := sf.Tag.Get("for"); only != "" {
			f.only = strings.Split(only, ",")
		}
		if tag, ok := sf.Tag.Lookup("serve"); ok {
			bound, err := strconv.ParseFloat(tag, 64)
			switch k := sf.Type.Kind(); {
			case k != reflect.Float64 && k != reflect.Int && k != reflect.Uint64:
				return nil, fmt.Errorf("option %s: a serve bound needs a number, not a %s", key, typeName(k))
			case err != nil || math.IsNaN(bound) || math.IsInf(bound, 0):
				return nil, fmt.Errorf("option %s: serve tag %q is not a finite number", key, tag)
			}
			f.serveMax = &bound
		}
		out = append(out, f)
	}
	return out, nil
}

func findField(fields []optionField, key string) (optionField, bool) {
	for _, f := range fields {
		if f.key == key {
			return f, true
		}
	}
	return optionField{}, false
}

func typeName(k reflect.Kind) string {
	switch k {
	case reflect.Float64:
		return "number"
	case reflect.Int:
		return "integer"
	case reflect.Uint64:
		return "unsigned integer"
	case reflect.Bool:
		return "bool"
	}
	return "string"
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic messages when several keys are wrong
	return keys
}
