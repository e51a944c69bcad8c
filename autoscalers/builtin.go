package autoscalers

// Names of the built-in autoscalers.
const (
	GoodputName    = "goodput"
	ThroughputName = "throughput"
	BandName       = "utility-band"
)

var (
	_ Autoscaler = (*RuleScaler)(nil)
	_ Autoscaler = (*BandScaler)(nil)
)

// RuleScaler applies a Rule to the jobs' goodput (or, ThroughputOnly, to
// their throughput) on the ready nodes.
type RuleScaler struct {
	Rule
	ThroughputOnly bool
	name           string
}

// NewGoodput returns the paper's goodput-based autoscaler.
func NewGoodput(r Rule) *RuleScaler { return &RuleScaler{Rule: r, name: GoodputName} }

// NewThroughput returns the throughput-based autoscaler of Or et al.
func NewThroughput(r Rule) *RuleScaler {
	return &RuleScaler{Rule: r, ThroughputOnly: true, name: ThroughputName}
}

// Name implements Autoscaler.
func (a *RuleScaler) Name() string { return a.name }

// Target implements Autoscaler.
func (a *RuleScaler) Target(s State) int {
	c := JobsCurve(s.Jobs, s.Cluster.MaxNodeGPUs(), a.ThroughputOnly)
	t := a.Rule.Target(c, s.Cluster.Nodes, s.MinNodes, s.MaxNodes)
	if t >= s.Cluster.Nodes && t < s.Current() {
		// Nodes already on order reach the target once ready.
		return s.Current()
	}
	return t
}

// BandScaler is the cluster-level utility-band autoscaler.
type BandScaler struct{ Band }

// Name implements Autoscaler.
func (a *BandScaler) Name() string { return BandName }

// Target implements Autoscaler.
func (a *BandScaler) Target(s State) int {
	c := JobsCurve(s.Jobs, s.Cluster.MaxNodeGPUs(), false)
	t := a.Band.Target(c, s.Cluster.Nodes, s.MinNodes, s.MaxNodes)
	if t >= s.Cluster.Nodes && t < s.Current() {
		return s.Current()
	}
	return t
}

// Builtin are the built-in autoscalers' registrations (goodput,
// throughput, utility-band).
func Builtin() []Registration {
	rule := func() Rule { return Rule{U: 2.0 / 3, L: 0.5} }
	return []Registration{Typed(Registration{
		Name: GoodputName,
		Doc:  "Pollux paper: scale up when goodput per node exceeds u x ideal, to where it is l x ideal",
	}, rule, func(r Rule) (Autoscaler, error) { return NewGoodput(r), nil }),
		Typed(Registration{
			Name: ThroughputName,
			Doc:  "Or et al. 2020: the same rule on throughput, statistical efficiency ignored",
		}, rule, func(r Rule) (Autoscaler, error) { return NewThroughput(r), nil }),
		Typed(Registration{
			Name: BandName,
			Doc:  "Pollux artifact's cluster-level form: keep utility averaged over a window within [low, high]",
		}, func() Band { return Band{Low: 0.35, High: 0.65, Window: 15} },
			func(b Band) (Autoscaler, error) { return &BandScaler{Band: b}, nil })}
}
