package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/polluxsim/polluxsim/internal/strictjson"
)

// Encode is the JSON text of one message (without a line end). A message
// holding NaN or an infinity, which JSON cannot carry, is an error naming
// the message's type.
func Encode(msg any) ([]byte, error) {
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("%s message: %w", TypeOf(msg), err)
	}
	return b, nil
}

// Decode reads one message: its envelope, then the message of that type,
// returned as a pointer (*Hello, *Ready, *Round, *Decision,
// *IncrementalRound, *IncrementalDecision, *Query, *Answer, *Error,
// *Admit or *Admission).
// The message is read by internal/strictjson: unknown types, unknown
// fields, keys in another case or given twice, nesting deeper than
// strictjson.MaxDepth and trailing data are errors.
func Decode(data []byte) (any, error) {
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("not a JSON message: %w", strictjson.Explain(data, err))
	}
	var msg any
	switch env.Type {
	case TypeHello:
		msg = new(Hello)
	case TypeReady:
		msg = new(Ready)
	case TypeRound:
		msg = new(Round)
	case TypeDecision:
		msg = new(Decision)
	case TypeIncrementalRound:
		msg = new(IncrementalRound)
	case TypeIncrementalDecision:
		msg = new(IncrementalDecision)
	case TypeQuery:
		msg = new(Query)
	case TypeAnswer:
		msg = new(Answer)
	case TypeError:
		msg = new(Error)
	case TypeAdmit:
		msg = new(Admit)
	case TypeAdmission:
		msg = new(Admission)
	case "":
		return nil, fmt.Errorf("message without a \"type\"")
	default:
		return nil, fmt.Errorf("unknown message type %q", env.Type)
	}
	// As strictly as every other JSON input: a key given twice (the last
	// won), or in another case, is refused, and the nesting is bounded.
	if err := strictjson.Decode(data, msg); err != nil {
		return nil, &MessageError{Type: env.Type, Err: err}
	}
	return msg, nil
}

// A MessageError is a message of a known type that Decode refuses: a
// field unknown, in another case or given twice, a value of the wrong
// kind, nesting too deep. Any other error of Decode is a line that is not
// a message at all.
type MessageError struct {
	Type string // the message's "type"
	Err  error
}

// Error names the message's type and what is wrong with it.
func (e *MessageError) Error() string { return e.Type + " message: " + e.Err.Error() }

// Unwrap is the decoder's error.
func (e *MessageError) Unwrap() error { return e.Err }

// TypeOf is the "type" of a message value (a message struct or a
// pointer to one), for errors.
func TypeOf(msg any) string {
	v := reflect.Indirect(reflect.ValueOf(msg))
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("Type"); f.Kind() == reflect.String && f.String() != "" {
			return f.String()
		}
	}
	return fmt.Sprintf("%T", msg)
}
