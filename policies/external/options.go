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

// maxMessageMiB bounds max_message_mib: 1 GiB.
const maxMessageMiB = 1024

// maxRoundTimeout bounds round_timeout: one day.
const maxRoundTimeout = 86400

// Options are the external policy's options.
type Options struct {
	Command       string  `option:"command" doc:"the policy's command line, split into words as a shell would (quotes, backslashes) but run without a shell, e.g. 'python3 python/examples/fifo.py'"`
	RoundTimeout  float64 `option:"round_timeout" doc:"seconds the policy may take for its handshake and for each round (wall-clock), in (0, 86400]"`
	MaxMessageMiB int     `option:"max_message_mib" doc:"the largest message the policy may send, MiB, in [1, 1024]"`
}

// Validate checks the options.
func (o *Options) Validate() error {
	if !(o.RoundTimeout > 0 && o.RoundTimeout <= maxRoundTimeout) || math.IsNaN(o.RoundTimeout) {
		return fmt.Errorf("round_timeout %v: want seconds in (0, %d]", o.RoundTimeout, maxRoundTimeout)
	}
	if o.MaxMessageMiB < 1 || o.MaxMessageMiB > maxMessageMiB {
		return fmt.Errorf("max_message_mib %d: want MiB in [1, %d]", o.MaxMessageMiB, maxMessageMiB)
	}
	if _, err := Split(o.Command); err != nil {
		return fmt.Errorf("command %q: %v", o.Command, err)
	}
	return nil
}

// Registration is the external policy's registration, registered in the
// default registry at init.
func Registration() policies.Registration {
	r := policies.Typed(policies.Registration{
		Name: Name,
		Doc:  "a policy in another process (option command), spoken to through the policy protocol on its standard input and output",
		// the command may do anything its user may
		Effects: policies.StartsProcesses,
	}, func() Options {
		return Options{RoundTimeout: DefaultRoundTimeout, MaxMessageMiB: DefaultMaxMessage >> 20}
	},
		func(o Options, env policies.Env) (policies.Policy, error) {
			argv, err := Split(o.Command)
			if err != nil {
				return nil, err
			}
			return Start(Config{Argv: argv, Timeout: time.Duration(o.RoundTimeout * float64(time.Second)),
				MaxMessage: o.MaxMessageMiB << 20, Env: env})
		})
	// The run's identity covers the script's content, not only the
	// command line (see CodeDigest).
	r.Code = func(v any) (string, error) {
		argv, err := Split(v.(*Options).Command)
		if err != nil {
			return "", err
		}
		return CodeDigest(argv)
	}
	return r
}
