package figures

import (
	"errors"
	"fmt"
	"math"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// elasticPlot draws a PlotElastic figure: three panels sharing the time
// axis, one line per cell.
func elasticPlot(exp *experiments.Experiment, ps experiments.PlotSpec, byCell map[string][]*results.RunResult) (Figure, error) {
	w := max(ps.Workload, 1)
	title := ps.Title
	if title == "" {
		title = fmt.Sprintf("%s: elastic cluster over time (workload %d)", exp.Name, w)
	}
	nodes := newPlot(title, "", "nodes")
	batch := newPlot("", "", "batch size")
	eff := newPlot("", "time (hours)", "statistical efficiency (%)")
	leg := NewLegend()
	found, maxT := 0, 0.0
	for i, c := range plotCells(exp, ps, byCell) {
		var run *results.RunResult
		for _, r := range byCell[c.Name] {
			if r.Workload == w {
				run = r
			}
		}
		if run == nil || run.Elastic == nil || len(run.Elastic.Time) == 0 {
			continue
		}
		s := run.Elastic
		found++
		var xyN, xyB, xyE plotter.XYs
		for k, t := range s.Time {
			h := t / 3600
			maxT = math.Max(maxT, h)
			xyN = append(xyN, plotter.XY{X: h, Y: float64(s.Nodes[k])})
			if s.Batch[k] > 0 {
				xyB = append(xyB, plotter.XY{X: h, Y: s.Batch[k]})
				xyE = append(xyE, plotter.XY{X: h, Y: 100 * s.Efficiency[k]})
			}
		}
		for _, pl := range []struct {
			p  *plot.Plot
			xy plotter.XYs
		}{{nodes, xyN}, {batch, xyB}, {eff, xyE}} {
			if len(pl.xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(pl.xy)
			if err != nil {
				return Figure{}, err
			}
			l.LineStyle = lineStyle(i)
			pl.p.Add(l)
			if pl.p == nodes {
				leg.Add(c.Title(), l)
			}
		}
	}
	if found == 0 {
		return Figure{}, errors.New("no elastic-cluster results for its cells")
	}
	xmax, xticks := niceAxis(maxT)
	for _, p := range []*plot.Plot{nodes, batch, eff} {
		p.X.Min, p.X.Max, p.X.Tick.Marker = 0, xmax, xticks
	}
	nodes.Y.Min, batch.Y.Min = 0, 0
	eff.Y.Min, eff.Y.Max = 0, 105
	return Figure{plots: []*plot.Plot{nodes, batch, eff}, legend: leg, w: 8 * vg.Inch, h: 7.5 * vg.Inch}, nil
}
