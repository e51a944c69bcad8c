package app

import (
	"fmt"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/service"
)

func newServeCmd(ext *extensions.Extensions) *cobra.Command {
	var (
		addr, tokenFile, tokenEnv string
		lim                       = service.DefaultLimits()
		drain                     time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve every policy as a live allocator over HTTP (AdaptDL's vocabulary)",
		Long: `serve runs the allocator service: a cluster manager opens a session (a policy,
its options, a seed, optionally an autoscaler) and posts one round at a time,
its nodes and active jobs with their hints in AdaptDL's keys, and gets back
each job's allocation as the node of each replica (docs/serve.md). The
simulator itself can be its client: run --policy remote --policy-opt url=URL.

It listens on 127.0.0.1 unless --addr says otherwise. With --token-file or
--token-env every request must carry "Authorization: Bearer TOKEN". SIGINT or
SIGTERM stops accepting, lets the requests in progress finish (--drain) and
exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token, err := service.ReadToken(tokenFile, tokenEnv)
			if err != nil {
				return err
			}
			for _, f := range []struct {
				name string
				v    time.Duration
			}{{"drain", drain}, {"idle-timeout", lim.IdleTimeout}} {
				if f.v <= 0 || f.v > maxServeDuration {
					return fmt.Errorf("--%s: want a positive duration of at most %v, got %v", f.name, maxServeDuration, f.v)
				}
			}
			for _, f := range []struct {
				name string
				v    int64
			}{{"max-body", lim.MaxBody}, {"max-jobs", int64(lim.MaxJobs)}, {"max-nodes", int64(lim.MaxNodes)}, {"max-sessions", int64(lim.MaxSessions)}} {
				if f.v <= 0 {
					return fmt.Errorf("--%s: want a positive number, got %d", f.name, f.v)
				}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("--addr %s: %w", addr, err)
			}
			ctx, _, stop := interruptible(cmd.Context())
			defer stop()
			w := cmd.ErrOrStderr()
			if host, _, _ := net.SplitHostPort(ln.Addr().String()); token == "" && !net.ParseIP(host).IsLoopback() {
				fmt.Fprintf(w, "%s: warning: serving on %s without a token: anyone who reaches it can use it\n", cmd.Root().Name(), host)
			}
			fmt.Fprintf(w, "%s serve: listening on http://%s\n", cmd.Root().Name(), ln.Addr())
			err = service.New(service.Config{Registry: ext.PolicyRegistry(), Autoscalers: ext.AutoscalerRegistry(), Limits: lim, Token: token}).Serve(ctx, ln, drain)
			if err == nil {
				fmt.Fprintf(w, "%s serve: stopped\n", cmd.Root().Name())
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&tokenFile, "token-file", "", "file holding the bearer token every request must carry")
	f.StringVar(&tokenEnv, "token-env", "", "environment variable holding the bearer token")
	f.Int64Var(&lim.MaxBody, "max-body", lim.MaxBody, "largest request body, bytes, at least 1")
	f.IntVar(&lim.MaxJobs, "max-jobs", lim.MaxJobs, "most jobs in one round, at least 1")
	f.IntVar(&lim.MaxNodes, "max-nodes", lim.MaxNodes, "most nodes in one round, at least 1")
	f.IntVar(&lim.MaxSessions, "max-sessions", lim.MaxSessions, "most sessions open at once, at least 1")
	f.DurationVar(&lim.IdleTimeout, "idle-timeout", lim.IdleTimeout, "a session without a request for this long is closed, in (0, 1e6] seconds")
	f.DurationVar(&drain, "drain", 30*time.Second, "on SIGTERM, longest wait for the requests in progress, in (0, 1e6] seconds")
	return cmd
}

// maxServeDuration bounds serve's durations (--drain, --idle-timeout), as
// the run's durations are bounded: 10⁶ s.
const maxServeDuration = 1e6 * time.Second
