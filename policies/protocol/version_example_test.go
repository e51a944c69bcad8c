package protocol_test

import (
	"fmt"

	"github.com/polluxsim/polluxsim/policies/protocol"
)

// An engine offers versions 1 to 2; a policy of version 1 answers 1 and
// keeps working, one of version 3 is refused.
func ExampleNegotiate() {
	hello := protocol.Hello{Type: protocol.TypeHello, Protocol: protocol.MinVersion, MaxProtocol: protocol.Version}
	for _, v := range []int{1, 2, 3} {
		got, err := protocol.Negotiate(hello, v)
		fmt.Println(got, err)
	}
	// Output:
	// 1 <nil>
	// 2 <nil>
	// 0 speaks protocol version 3, this simulator speaks 1 to 2
}
