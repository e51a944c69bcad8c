// Package flagvalue holds the pflag values of the polluxsim command line:
// durations in seconds and numbers parsed with one-line messages that say
// what was expected ("not a number", "not a whole number") instead of
// strconv's wording, rejecting NaN and infinities where they are read.
// pflag wraps each error as `invalid argument "TEXT" for "--flag" flag:
// MESSAGE`, so the messages do not repeat the text. The parse functions
// are fuzzed (flagvalue_test.go).
//
// One rule for every numeric flag: plain decimal only. strconv would
// accept digit separators ("1_000") and hexadecimal floats ("0x1p4") in
// float and duration flags but not in integer ones; all refuse them here.
package flagvalue

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// SecondsValue is a flag holding a duration in seconds. It accepts a plain
// number of seconds ("60", "0.5") or a Go duration ("60s", "2m", "1m30s").
type SecondsValue struct {
	v        *float64
	positive bool // zero not allowed
}

// NewSeconds sets *p to def and returns a flag value that stores into p;
// positive forbids zero (negative durations are always refused).
func NewSeconds(p *float64, def float64, positive bool) *SecondsValue {
	*p = def
	return &SecondsValue{v: p, positive: positive}
}

func (s *SecondsValue) String() string {
	if s.v == nil {
		return ""
	}
	return strconv.FormatFloat(*s.v, 'g', -1, 64) + "s"
}

func (s *SecondsValue) Set(text string) error {
	x, err := ParseSeconds(text)
	if err != nil {
		return err
	}
	if x < 0 || (s.positive && x == 0) {
		if s.positive {
			return errors.New("must be positive")
		}
		return errors.New("must not be negative")
	}
	*s.v = x
	return nil
}

func (s *SecondsValue) Type() string { return "duration" }

// MaxSeconds bounds durations (about 31 700 years) so that later arithmetic
// on simulated times stays exact to well below a second.
const MaxSeconds = 1e12

// ParseSeconds reads "60", "60s", "2m", "1h30m" as seconds: a finite
// number of at most MaxSeconds in absolute value.
func ParseSeconds(text string) (float64, error) {
	t := strings.TrimSpace(text)
	if !PlainDecimal(t) {
		return 0, errors.New("not a duration (use seconds or e.g. 60s, 2m)")
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if isRangeErr(err) {
			return 0, errors.New("out of range")
		}
		d, derr := time.ParseDuration(t)
		if derr != nil {
			return 0, errors.New("not a duration (use seconds or e.g. 60s, 2m)")
		}
		x = d.Seconds()
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, errors.New("not a finite duration")
	}
	if math.Abs(x) > MaxSeconds {
		return 0, errors.New("out of range")
	}
	return x, nil
}

// FloatValue is a float64 flag that must be a finite number.
type FloatValue struct{ v *float64 }

// NewFloat sets *p to def and returns a flag value that stores into p.
func NewFloat(p *float64, def float64) *FloatValue {
	*p = def
	return &FloatValue{v: p}
}

func (f *FloatValue) String() string {
	if f.v == nil {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64)
}

func (f *FloatValue) Set(text string) error {
	x, err := ParseFloat(text)
	if err != nil {
		return err
	}
	*f.v = x
	return nil
}

func (f *FloatValue) Type() string { return "float" }

// ParseFloat reads a finite decimal number ("-1", "0.5", "1e-3").
func ParseFloat(text string) (float64, error) {
	t := strings.TrimSpace(text)
	if !PlainDecimal(t) {
		return 0, errors.New("not a number")
	}
	x, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil && isRangeErr(err):
		return 0, errors.New("out of range")
	case err != nil:
		return 0, errors.New("not a number")
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0, errors.New("not a finite number")
	}
	return x, nil
}

// IntValue is an int flag read as a whole decimal number.
type IntValue struct{ v *int }

// NewInt sets *p to def and returns a flag value that stores into p.
func NewInt(p *int, def int) *IntValue {
	*p = def
	return &IntValue{v: p}
}

func (i *IntValue) String() string {
	if i.v == nil {
		return ""
	}
	return strconv.Itoa(*i.v)
}

func (i *IntValue) Set(text string) error {
	x, err := ParseInt(text)
	if err != nil {
		return err
	}
	*i.v = x
	return nil
}

func (i *IntValue) Type() string { return "int" }

// MaxInt bounds integer flags so that products of two of them (nodes ×
// GPUs per node, jobs × GPUs) cannot overflow an int.
const MaxInt = 1 << 31

// ParseInt reads a whole decimal number in [-MaxInt, MaxInt].
func ParseInt(text string) (int, error) {
	t := strings.TrimSpace(text)
	x, err := strconv.ParseInt(t, 10, 64)
	switch {
	case err != nil && isRangeErr(err):
		return 0, errors.New("out of range")
	case err != nil:
		return 0, errors.New("not a whole number")
	case x > MaxInt || x < -MaxInt:
		return 0, errors.New("out of range")
	}
	return int(x), nil
}

// UintValue is a uint64 flag (seeds) read as a whole decimal number ≥ 0.
type UintValue struct{ v *uint64 }

// NewUint sets *p to def and returns a flag value that stores into p.
func NewUint(p *uint64, def uint64) *UintValue {
	*p = def
	return &UintValue{v: p}
}

func (u *UintValue) String() string {
	if u.v == nil {
		return ""
	}
	return strconv.FormatUint(*u.v, 10)
}

func (u *UintValue) Set(text string) error {
	x, err := ParseUint(text)
	if err != nil {
		return err
	}
	*u.v = x
	return nil
}

func (u *UintValue) Type() string { return "uint" }

// ParseUint reads a whole decimal number in [0, 2^64).
func ParseUint(text string) (uint64, error) {
	t := strings.TrimSpace(text)
	x, err := strconv.ParseUint(t, 10, 64)
	switch {
	case err != nil && isRangeErr(err):
		return 0, errors.New("out of range (at most 18446744073709551615)")
	case err != nil:
		return 0, errors.New("not a whole number ≥ 0")
	}
	return x, nil
}

// PlainDecimal reports whether t is free of the digit separators and
// hexadecimal prefixes strconv.ParseFloat accepts (see the package doc).
func PlainDecimal(t string) bool { return !strings.ContainsAny(t, "_xX") }

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}
