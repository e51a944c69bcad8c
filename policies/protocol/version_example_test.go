package protocol_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// An engine offers versions 1 to 3; a policy of version 1 answers 1 and
// keeps working, one of version 4 is refused.
func ExampleNegotiate() {
	hello := protocol.Hello{Type: protocol.TypeHello, Protocol: protocol.MinVersion, MaxProtocol: protocol.Version}
	for _, v := range []int{1, 3, 4} {
		got, err := protocol.Negotiate(hello, v)
		fmt.Println(got, err)
	}
	// Output:
	// 1 <nil>
	// 3 <nil>
	// 0 speaks protocol version 4, this simulator speaks 1 to 3
}
