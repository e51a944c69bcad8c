package app

import (
	"fmt"
	"net"
	"time"

	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/spf13/cobra"

	"github.com/polluxsim/polluxsim/internal/suggest"
	"github.com/polluxsim/polluxsim/service"
)

func newServeCmd(ext *extensions.Extensions) *cobra.Command {
	var (
		addr, tokenFile, tokenEnv string
		lim                       = service.DefaultLimits()
		drain                     time.Duration
		allow                     []string
		costly                    bool
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
--token-env every request must carry "Authorization: Bearer TOKEN". A caller
may only ask for decisions: the policies that start processes, read files or
the environment, or reach the network (external, remote) are refused unless
--allow-policy names them. Every input is bounded (--max-* flags,
--body-timeout). SIGINT or SIGTERM stops accepting, lets the requests in
progress finish (--drain) and exits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token, err := service.ReadToken(tokenFile, tokenEnv)
			if err != nil {
				return err
			}
			for _, f := range []struct {
				name string
				v    time.Duration
			}{{"drain", drain}, {"idle-timeout", lim.IdleTimeout}, {"body-timeout", lim.BodyTimeout}} {
				if f.v <= 0 || f.v > maxServeDuration {
					return fmt.Errorf("--%s: want a positive duration of at most %v, got %v", f.name, maxServeDuration, f.v)
				}
			}
			for _, f := range []struct {
				name string
				v    int64
			}{{"max-body", lim.MaxBody}, {"max-jobs", int64(lim.MaxJobs)}, {"max-nodes", int64(lim.MaxNodes)}, {"max-sessions", int64(lim.MaxSessions)},
				{"max-gpus", int64(lim.MaxGPUs)}, {"max-job-nodes", int64(lim.MaxJobNodes)}, {"max-response", lim.MaxResponse}, {"max-conns", int64(lim.MaxConns)}} {
				if f.v <= 0 {
					return fmt.Errorf("--%s: want a positive number, got %d", f.name, f.v)
				}
			}
			for _, name := range allow {
				r, ok := ext.PolicyRegistry().Lookup(name)
				if !ok {
					hint := suggest.Hint(name, ext.PolicyRegistry().Names(), nil)
					if hint != "" {
						hint += " "
					}
					return fmt.Errorf("--allow-policy: unknown policy %q (%spolluxsim policies lists them)", name, hint)
				}
				if r.Effects == 0 {
					return fmt.Errorf("--allow-policy %s: the policy has no effects to allow; every caller may already use it", name)
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
			for _, name := range allow {
				r, _ := ext.PolicyRegistry().Lookup(name)
				fmt.Fprintf(w, "%s: warning: --allow-policy %s: every caller may now use a policy that %s, with options of its choosing\n",
					cmd.Root().Name(), name, r.Effects)
			}
			if costly {
				fmt.Fprintf(w, "%s: warning: --allow-costly-options: a caller's policy options may now take memory and time without the service's bounds\n", cmd.Root().Name())
			}
			fmt.Fprintf(w, "%s serve: listening on http://%s\n", cmd.Root().Name(), ln.Addr())
			err = service.New(service.Config{Registry: ext.PolicyRegistry(), Autoscalers: ext.AutoscalerRegistry(), Limits: lim, Token: token, Allow: allow, CostlyOptions: costly, Log: w}).Serve(ctx, ln, drain)
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
	f.IntVar(&lim.MaxGPUs, "max-gpus", lim.MaxGPUs, "most GPUs in one round, all nodes together (and so per job), at least 1")
	f.IntVar(&lim.MaxJobNodes, "max-job-nodes", lim.MaxJobNodes, "most jobs × nodes in one round, at least 1")
	f.Int64Var(&lim.MaxResponse, "max-response", lim.MaxResponse, "largest answer to a round, bytes, at least 1 (a round that could exceed it is refused)")
	f.IntVar(&lim.MaxConns, "max-conns", lim.MaxConns, "most connections open at once (more wait to be accepted), at least 1")
	f.DurationVar(&lim.BodyTimeout, "body-timeout", lim.BodyTimeout, "longest time a request's body may take to arrive, and an answer to be taken, in (0, 1e6] seconds")
	f.StringSliceVar(&allow, "allow-policy", nil, "let callers use these policies with effects (external starts processes; remote reads files and the environment and reaches URLs), comma-separated")
	f.BoolVar(&costly, "allow-costly-options", false, "let callers set policy options above their service bounds (options whose memory or time grow with them,, such as Pollux's population; polluxsim policies names each bound)")
	f.DurationVar(&drain, "drain", 30*time.Second, "on SIGTERM, longest wait for the requests in progress, in (0, 1e6] seconds")
	return cmd
}

// maxServeDuration bounds serve's durations (--drain, --idle-timeout), as
// the run's durations are bounded: 10⁶ s.
const maxServeDuration = 1e6 * time.Second
