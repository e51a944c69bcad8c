package protocol_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// An engine offers versions 1 to 4; a policy of version 1 answers 1 and
// keeps working, one of version 5 is refused.
func ExampleNegotiate() {
	hello := protocol.Hello{Type: protocol.TypeHello, Protocol: protocol.MinVersion, MaxProtocol: protocol.Version}
	for _, v := range []int{1, 4, 5} {
		got, err := protocol.Negotiate(hello, v)
		fmt.Println(got, err)
	}
	// Output:
	// 1 <nil>
	// 4 <nil>
	// 0 speaks protocol version 5, this simulator speaks 1 to 4
}
