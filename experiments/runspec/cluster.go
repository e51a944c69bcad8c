package runspec

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/internal/flagvalue"
	"github.com/polluxsim/polluxsim/internal/fserr"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/profiles"
)

// ParseCluster reads a cluster of node pools: comma-separated pools
// TYPE:NODESxGPUS[@PRICE], e.g. "t4:6x4,a100:2x8@3.06,rtx2080ti:3x8", where
// TYPE is a GPU type name or Sia suffix (see profiles.CanonicalType) and
// PRICE the cost of one GPU-hour. The pools keep their order (nodes are
// numbered pool by pool). Two optional settings among them make the
// network two-tier (policies.Cluster.Racks): racks=R splits the nodes into
// R racks of equal size, consecutive nodes together, and oversub=O (1 when
// absent) is the spine's oversubscription, as in "h100:64x8,racks=8,oversub=4".
// The settings' keys are case-sensitive, as every key=value setting of
// the command line is (--policy-opt, --failures, generate:, llm:); their
// numbers read as the pools' counts do (a leading "+" is a sign, "1_0"
// and "0x8" are refused).
func ParseCluster(s string) (policies.Cluster, error) {
	var pools []policies.Pool
	var net policies.Cluster
	seen := map[string]bool{}
	for i, part := range strings.Split(s, ",") {
		if key, val, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
			if err := parseNetwork(&net, key, val, seen); err != nil {
				return policies.Cluster{}, fmt.Errorf("--cluster %q: %w", strings.TrimSpace(part), err)
			}
			continue
		}
		p, err := parsePool(strings.TrimSpace(part))
		if err != nil {
			return policies.Cluster{}, fmt.Errorf("--cluster pool %d %q: %w", i+1, part, err)
		}
		pools = append(pools, p)
	}
	if len(pools) == 0 {
		return policies.Cluster{}, fmt.Errorf("--cluster %q: no pools TYPE:NODESxGPUS[@PRICE]", s)
	}
	c, err := newCluster(pools)
	if err != nil {
		return c, err
	}
	if c, err = withNetwork(c, net); err != nil {
		return c, fmt.Errorf("--cluster: %w", err)
	}
	return c, nil
}

// networkKeys are the settings of a two-tier network.
var networkKeys = []string{"racks", "oversub"}

// parseNetwork reads one setting of a two-tier network, key=val, into net.
func parseNetwork(net *policies.Cluster, key, val string, seen map[string]bool) error {
	key = strings.TrimSpace(key)
	if seen[key] {
		return errors.New("given twice")
	}
	seen[key] = true
	switch key {
	case "racks":
		v, err := positive("racks", val, MaxNodes)
		net.Racks = v
		return err
	case "oversub":
		v, err := flagvalue.ParseFloat(strings.TrimSpace(val))
		if err != nil || !(v >= 1 && v <= policies.MaxOversubscription) {
			return fmt.Errorf("oversub must be a ratio in [1, %g] (1 is non-blocking), got %q", float64(policies.MaxOversubscription), val)
		}
		net.Oversubscription = v
		return nil
	}
	for _, k := range networkKeys {
		if strings.EqualFold(key, k) {
			return fmt.Errorf("unknown setting %q (keys are case-sensitive: %q)", key, k)
		}
	}
	return fmt.Errorf("unknown setting %q: the network settings are racks=R and oversub=O", key)
}

// withNetwork gives cluster c the two-tier network of net (racks and
// oversubscription; oversubscription 1 when only racks are given), checked
// against c's nodes; the caller names the flag or the file's line.
func withNetwork(c policies.Cluster, net policies.Cluster) (policies.Cluster, error) {
	c.Racks, c.Oversubscription = net.Racks, net.Oversubscription
	if c.Racks > 0 && c.Oversubscription == 0 {
		c.Oversubscription = 1
	}
	if err := c.CheckNetwork(); err != nil {
		return policies.Cluster{}, err
	}
	return c, nil
}

func parsePool(s string) (policies.Pool, error) {
	typ, rest, ok := strings.Cut(s, ":")
	if !ok {
		return policies.Pool{}, errors.New("want TYPE:NODESxGPUS[@PRICE], e.g. t4:6x4")
	}
	t, err := profiles.CanonicalType(typ)
	if err != nil {
		return policies.Pool{}, err
	}
	shape, price, priced := strings.Cut(rest, "@")
	ns, gs, ok := strings.Cut(strings.ToLower(shape), "x")
	if !ok {
		return policies.Pool{}, errors.New("want NODESxGPUS after the type, e.g. 6x4")
	}
	p := policies.Pool{Type: t}
	if p.Nodes, err = positive("nodes", ns, MaxNodes); err != nil {
		return p, err
	}
	if p.GPUsPerNode, err = positive("GPUs per node", gs, MaxGPUsPerNode); err != nil {
		return p, err
	}
	if priced {
		if p.Price, err = flagvalue.ParseFloat(price); err != nil || !(p.Price >= 0) || p.Price > MaxPrice { // plain decimal: 1_0 was 10
			return p, fmt.Errorf("price must be a number of currency units per GPU-hour in [0, %g], got %q", MaxPrice, price)
		}
	}
	return p, nil
}

func positive(what, s string, limit int) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 1 || v > limit {
		return 0, fmt.Errorf("%s must be a whole number in [1, %d], got %q", what, limit, s)
	}
	return v, nil
}

// newCluster checks the pools as a whole and builds the cluster.
func newCluster(pools []policies.Pool) (policies.Cluster, error) {
	price := map[string]float64{}
	nodes := 0
	for _, p := range pools {
		if q, ok := price[p.Type]; ok && q != p.Price {
			return policies.Cluster{}, fmt.Errorf("--cluster: two %s pools with different prices (%v, %v); one price per GPU type", p.Type, q, p.Price)
		}
		price[p.Type] = p.Price
		nodes += p.Nodes
	}
	if nodes > MaxNodes {
		return policies.Cluster{}, fmt.Errorf("--cluster has %d nodes, at most %d", nodes, MaxNodes)
	}
	return policies.NewCluster(pools...), nil
}

// ReadClusterFile reads a cluster file: one pool per line, the columns
// NAME TYPE NODES GPUS_PER_NODE [PRICE] separated by spaces or tabs, and
// optionally a line of network settings, "racks=R oversub=O" (ParseCluster's);
// blank lines are skipped, and # starts a comment to the end of its line.
// Errors name file:line.
func ReadClusterFile(path string) (policies.Cluster, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return policies.Cluster{}, fmt.Errorf("--cluster %s: %w", path, fserr.Cause(err))
	}
	var pools []policies.Pool
	var net policies.Cluster
	seen := map[string]bool{}
	at := map[string]int{}    // network setting -> its line
	names := map[string]int{} // pool name -> its line
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 1
	for ; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#") // a comment runs to the line's end
		f := strings.Fields(text)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if strings.Contains(f[0], "=") {
			// The network line: racks=R [oversub=O].
			for _, kv := range f {
				key, val, ok := strings.Cut(kv, "=")
				if !ok {
					return policies.Cluster{}, fmt.Errorf("%s:%d: want KEY=VALUE settings (racks=R oversub=O), got %q", path, line, kv)
				}
				if err := parseNetwork(&net, key, val, seen); err != nil {
					return policies.Cluster{}, fmt.Errorf("%s:%d: %s: %w", path, line, kv, err)
				}
				at[strings.TrimSpace(key)] = line
			}
			continue
		}
		if len(f) < 4 || len(f) > 5 {
			return policies.Cluster{}, fmt.Errorf("%s:%d: want NAME TYPE NODES GPUS_PER_NODE [PRICE], got %d fields", path, line, len(f))
		}
		spec := f[1] + ":" + f[2] + "x" + f[3]
		if len(f) == 5 {
			spec += "@" + f[4]
		}
		p, err := parsePool(spec)
		if err != nil {
			return policies.Cluster{}, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if first, dup := names[f[0]]; dup {
			return policies.Cluster{}, fmt.Errorf("%s:%d: pool name %q is also line %d's: names must be unique", path, line, f[0], first)
		}
		names[f[0]] = line
		p.Name = f[0]
		pools = append(pools, p)
	}
	if err := sc.Err(); err != nil {
		return policies.Cluster{}, fmt.Errorf("%s:%d: %w", path, line, err)
	}
	if len(pools) == 0 {
		return policies.Cluster{}, fmt.Errorf("--cluster %s: no pools", path)
	}
	c, err := newCluster(pools)
	if err != nil {
		return c, err
	}
	if c, err = withNetwork(c, net); err != nil {
		// The racks do not divide the nodes, or oversub has no racks.
		return c, fmt.Errorf("%s:%d: %w", path, cmp.Or(at["racks"], at["oversub"]), err)
	}
	return c, nil
}

// ClusterString writes a cluster's pools and two-tier network in
// ParseCluster's syntax ("" for a cluster without pools).
func ClusterString(c policies.Cluster) string {
	parts := make([]string, len(c.Pools))
	for i, p := range c.Pools {
		parts[i] = fmt.Sprintf("%s:%dx%d", p.Type, p.Nodes, p.GPUsPerNode)
		if p.Price > 0 {
			parts[i] += "@" + strconv.FormatFloat(p.Price, 'g', -1, 64)
		}
	}
	if c.Racks > 0 && len(parts) > 0 {
		parts = append(parts, fmt.Sprintf("racks=%d", c.Racks), "oversub="+strconv.FormatFloat(c.Oversubscription, 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

// ClusterSpec is the run's cluster as every output names it: its node
// pools in ParseCluster's syntax ("t4:6x4,a100:2x8,rtx2080ti:3x8"), or
// NODESxGPUS ("16x4") for a cluster without pools (--nodes ×
// --gpus-per-node); an elastic cluster's initial size.
func (s RunSpec) ClusterSpec() string {
	if c := s.ClusterOf(); len(c.Pools) > 0 {
		return ClusterString(c)
	}
	return fmt.Sprintf("%dx%d", s.Nodes, s.GPUsPerNode)
}

// ClusterText describes the run's cluster for people: its GPUs and
// ClusterSpec, "64 GPUs (t4:6x4,a100:2x8,rtx2080ti:3x8)".
func (s RunSpec) ClusterText() string {
	return fmt.Sprintf("%d GPUs (%s)", s.ClusterGPUs(), s.ClusterSpec())
}

// UniformNodeGPUs is the GPUs of every node when all nodes have the same
// number, false when the pools' nodes differ.
func (s RunSpec) UniformNodeGPUs() (int, bool) {
	c := s.ClusterOf()
	for _, p := range c.Pools {
		if p.GPUsPerNode != c.Pools[0].GPUsPerNode {
			return 0, false
		}
	}
	if len(c.Pools) > 0 {
		return c.Pools[0].GPUsPerNode, true
	}
	return s.GPUsPerNode, true
}

// LoadCluster reads the --cluster value: a cluster file if arg names an
// existing file, else pools in ParseCluster's syntax.
func LoadCluster(arg string) (policies.Cluster, error) {
	st, err := os.Stat(arg)
	if err == nil && !st.IsDir() {
		return ReadClusterFile(arg)
	}
	if !strings.Contains(arg, ":") {
		// Not pools: a cluster file that is not there.
		what := "no such file"
		if err == nil {
			what = "a folder, not a file"
		}
		return policies.Cluster{}, fmt.Errorf("--cluster %s: %s, and not pools TYPE:NODESxGPUS[@PRICE]", arg, what)
	}
	return ParseCluster(arg)
}
