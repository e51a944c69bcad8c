package protocol

import "fmt"

// Negotiate is the version of a conversation whose engine offered hello
// and whose policy answered with version v: v when the engine offered it,
// else an error saying both.
func Negotiate(hello Hello, v int) (int, error) {
	hi := max(hello.MaxProtocol, hello.Protocol)
	if v < hello.Protocol || v > hi {
		if hi == hello.Protocol {
			return 0, fmt.Errorf("speaks protocol version %d, this simulator speaks %d", v, hi)
		}
		return 0, fmt.Errorf("speaks protocol version %d, this simulator speaks %d to %d", v, hello.Protocol, hi)
	}
	return v, nil
}
