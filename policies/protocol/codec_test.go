package protocol

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeStrict: a message is read as strictly as every other JSON
// input: a key given twice (the last one won), a key in the wrong case
// (it filled the field), and arrays nested past the bound (60,000 "[" in
// one line) are refused, each naming the message's type and the key or
// the place.
func TestDecodeStrict(t *testing.T) {
	if _, err := Decode([]byte(`{"type": "decision", "round": 1, "alloc": [[1, 0]]}`)); err != nil {
		t.Fatalf("a valid decision: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"type": "decision", "round": 1, "alloc": [[1, 0]], "alloc": [[0, 4]]}`, `decision message: duplicate field "alloc"`},
		{`{"type": "decision", "round": 1, "round": 2, "alloc": []}`, `decision message: duplicate field "round"`},
		{`{"type": "ready", "type": "decision", "round": 1, "alloc": []}`, `duplicate field "type"`},
		{`{"type": "ready", "protocol": 1, "name": "x", "traits": {}, "options": {"a": 1, "a": 2}}`, `ready message: options: duplicate field "a"`},
		{`{"type": "decision", "round": 1, "Alloc": []}`, `decision message: unknown field "Alloc" (keys are case-sensitive: "alloc")`},
		{`{"type": "decision", "round": 1, "alloc": ` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`, `decision message: line 1, column 106: arrays and objects nested deeper than 64 levels`},
		{`{"type": "decision", "round": 1, "alloc": ` + strings.Repeat("[", 60000), `not a JSON message: invalid character '[' exceeded max depth`},
	} {
		if _, err := Decode([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80s: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestMessageError: a message of a known type that is refused is a
// *MessageError naming the type; a line that is not a message is not.
func TestMessageError(t *testing.T) {
	var me *MessageError
	if _, err := Decode([]byte(`{"type": "answer", "value": 1, "value": 2, "ok": true}`)); !errors.As(err, &me) || me.Type != TypeAnswer {
		t.Errorf("duplicate key: %#v", err)
	}
	for _, in := range []string{`allocating GPUs`, `{"type": "decision", "alloc": [`, `{"type": "nosuch"}`, `{}`} {
		if _, err := Decode([]byte(in)); err == nil || errors.As(err, &me) {
			t.Errorf("%s: %#v", in, err)
		}
	}
}
