package flagvalue

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// checkFlagMessage: a flag value error is one short line (pflag quotes
// the value itself).
func checkFlagMessage(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if msg == "" || strings.ContainsAny(msg, "\n\r") || !utf8.ValidString(msg) || len(msg) > 80 {
		t.Fatalf("bad message %q", msg)
	}
}

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]float64{
		"60": 60, " 0.5 ": 0.5, "60s": 60, "2m": 120, "1h30m": 5400, "1m0.5s": 60.5, "1e3": 1000,
		"0": 0, "-5": -5, "-2m": -120, "250ms": 0.25, "1e12": 1e12,
	} {
		got, err := ParseSeconds(in)
		if err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "NaN", "inf", "-Inf", "1e400", "1e13", "60 s", "2 m", "1d", "0x", "s"} {
		if got, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q) = %v, want an error", in, got)
		}
	}
}

// TestPlainDecimal: every numeric flag reads plain decimal only: digit
// separators ("1_000") and hexadecimal ("0x1p4") are refused alike, as
// integer flags always did.
func TestPlainDecimal(t *testing.T) {
	for _, in := range []string{"1_000", "1_0", "0x1p4", "0X10", "-0x1p-2", "1_000.5"} {
		if x, err := ParseFloat(in); err == nil {
			t.Errorf("ParseFloat(%q) = %v, want an error", in, x)
		}
		if x, err := ParseSeconds(in); err == nil {
			t.Errorf("ParseSeconds(%q) = %v, want an error", in, x)
		}
		if x, err := ParseInt(in); err == nil {
			t.Errorf("ParseInt(%q) = %v, want an error", in, x)
		}
	}
}

// FuzzParseSeconds: ParseSeconds never panics; what it accepts is finite
// and bounded, equals strconv's reading of a plain number or
// time.ParseDuration's of a duration, and reads back exactly from its
// shortest decimal form.
func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"60", "0.5", "60s", "2m", "1h30m", "-5", "0", "NaN", "Inf", "1e400", "abc", "",
		"1m0.000000001s", "9223372036854775807ns", "0x1p-2", "1_000", " 7 ", "-0", "2562047h47m16.854775807s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		x, err := ParseSeconds(in)
		if err != nil {
			checkFlagMessage(t, err)
			return
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > MaxSeconds {
			t.Fatalf("ParseSeconds(%q) = %v", in, x)
		}
		trimmed := strings.TrimSpace(in)
		if strings.ContainsAny(trimmed, "_xX") {
			t.Fatalf("ParseSeconds(%q) = %v: not plain decimal", in, x)
		}
		if v, err := strconv.ParseFloat(trimmed, 64); err == nil {
			if v != x {
				t.Fatalf("ParseSeconds(%q) = %v, strconv says %v", in, x, v)
			}
		} else if d, err := time.ParseDuration(trimmed); err != nil || d.Seconds() != x {
			t.Fatalf("ParseSeconds(%q) = %v, time.ParseDuration says %v, %v", in, x, d, err)
		}
		back, err := ParseSeconds(strconv.FormatFloat(x, 'g', -1, 64))
		if err != nil || back != x {
			t.Fatalf("%v does not read back: %v, %v", x, back, err)
		}
		// The flag applies its sign rules on top.
		var v float64
		err = NewSeconds(&v, 1, true).Set(in)
		if (err == nil) != (x > 0) || (err == nil && v != x) {
			t.Fatalf("positive seconds flag Set(%q): %v, %v", in, v, err)
		}
	})
}

// FuzzParseFloat: ParseFloat accepts exactly the finite numbers strconv
// reads in plain decimal (no '_' separators, no hexadecimal), with the
// same value.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"-1", "0.5", "1e-3", "abc", "NaN", "+Inf", "1e400", "", " -10 ", "0x1p4", "1_0", "-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		x, err := ParseFloat(in)
		v, serr := strconv.ParseFloat(strings.TrimSpace(in), 64)
		if err != nil {
			checkFlagMessage(t, err)
			if serr == nil && !math.IsNaN(v) && !math.IsInf(v, 0) && !strings.ContainsAny(in, "_xX") {
				t.Fatalf("ParseFloat(%q) rejected the finite %v: %v", in, v, err)
			}
			return
		}
		if serr != nil || math.IsNaN(x) || math.IsInf(x, 0) || x != v {
			t.Fatalf("ParseFloat(%q) = %v; strconv %v, %v", in, x, v, serr)
		}
	})
}

// FuzzParseInt: ParseInt accepts whole decimal numbers within
// ±MaxInt, with strconv's value; ParseUint whole numbers ≥ 0.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "16", "-4", "4.0", "1e3", "abc", "", " 7 ", "+3", "2147483648", "2147483649",
		"-2147483649", "99999999999999999999", "18446744073709551615", "18446744073709551616", "0x10", "0010"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		x, err := ParseInt(in)
		v, serr := strconv.ParseInt(strings.TrimSpace(in), 10, 64)
		switch {
		case err != nil:
			checkFlagMessage(t, err)
			if serr == nil && v >= -MaxInt && v <= MaxInt {
				t.Fatalf("ParseInt(%q) rejected %d: %v", in, v, err)
			}
		case serr != nil || int64(x) != v || x > MaxInt || x < -MaxInt:
			t.Fatalf("ParseInt(%q) = %d; strconv %d, %v", in, x, v, serr)
		}
		u, err := ParseUint(in)
		w, serr := strconv.ParseUint(strings.TrimSpace(in), 10, 64)
		switch {
		case err != nil:
			checkFlagMessage(t, err)
			if serr == nil {
				t.Fatalf("ParseUint(%q) rejected %d: %v", in, w, err)
			}
		case serr != nil || u != w:
			t.Fatalf("ParseUint(%q) = %d; strconv %d, %v", in, u, w, serr)
		}
	})
}
