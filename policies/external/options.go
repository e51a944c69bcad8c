package external

import (
	"fmt"
	"math"
	"time"

	"github.com/polluxsim/polluxsim/policies"
)

// Name is the policy's registered name.
const Name = "external"

// DefaultRoundTimeout is the default of the round_timeout option, seconds.
const DefaultRoundTimeout = 60

// maxRoundTimeout bounds round_timeout: one day.
const maxRoundTimeout = 86400

// Options are the external policy's options.
type Options struct {
	Command      string  `option:"command" doc:"the policy's command line, split into words as a shell would (quotes, backslashes) but run without a shell, e.g. 'python3 python/examples/fifo.py'"`
	RoundTimeout float64 `option:"round_timeout" doc:"seconds the policy may take for its handshake and for each round (wall-clock), in (0, 86400]"`
}

// Validate checks the options.
func (o *Options) Validate() error {
	if !(o.RoundTimeout > 0 && o.RoundTimeout <= maxRoundTimeout) || math.IsNaN(o.RoundTimeout) {
		return fmt.Errorf("round_timeout %v: want seconds in (0, %d]", o.RoundTimeout, maxRoundTimeout)
	}
	if _, err := Split(o.Command); err != nil {
		return fmt.Errorf("command %q: %v", o.Command, err)
	}
	return nil
}

// Registration is the external policy's registration, registered in the
// default registry at init.
func Registration() policies.Registration {
	return policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "a policy in another process (option command), spoken to through the policy protocol on its standard input and output",
	}, func() Options { return Options{RoundTimeout: DefaultRoundTimeout} },
		func(o Options, env policies.Env) (policies.Policy, error) {
			argv, err := Split(o.Command)
			if err != nil {
				return nil, err
			}
			return Start(Config{Argv: argv, Timeout: time.Duration(o.RoundTimeout * float64(time.Second)), Env: env})
		})
}

func init() { policies.Register(Registration()) }
