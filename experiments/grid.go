package experiments

import (
	"encoding/json"
	"fmt"
)

// Grid describes cells as every policy under every setting, so that adding
// a policy to an experiment is one line: one entry of Policies, whose cells
// (one per setting) and plot series the grid makes. Its cells come after
// the spec's own cells, setting by setting, the policies in order; the
// cell of policy P under setting S is named "P-S" and labelled "P's label,
// S's label". Its plots come after the spec's own plots.
type Grid struct {
	Policies []GridPolicy  `json:"policies"`
	Settings []GridSetting `json:"settings"`
	Plots    []GridPlot    `json:"plots,omitempty"`
}

// GridPolicy is one row of a grid: a policy and its options, as a cell
// gives them.
type GridPolicy struct {
	Name    string          `json:"name"`
	Label   string          `json:"label,omitempty"`
	Policy  string          `json:"policy"`
	Options json.RawMessage `json:"options,omitempty"`
}

// GridSetting is one column of a grid: the settings and workload of its
// cells, as a cell gives them, and X, its position on the x axis of the
// grid's lines plots.
type GridSetting struct {
	Name     string          `json:"name"`
	Label    string          `json:"label,omitempty"`
	X        float64         `json:"x,omitempty"`
	Settings json.RawMessage `json:"settings,omitempty"`
	Workload *CellWorkload   `json:"workload,omitempty"`
}

// GridPlot is a plot of a metric of every policy of the grid over some of
// its settings (Settings, in order): a lines plot (a line per policy, a
// point per setting at its X) or a bars plot (a group per setting, a bar
// per policy). The other fields are a PlotSpec's.
type GridPlot struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Title    string   `json:"title,omitempty"`
	Metric   string   `json:"metric"`
	Scale    float64  `json:"scale,omitempty"`
	XLabel   string   `json:"x_label,omitempty"`
	YLabel   string   `json:"y_label,omitempty"`
	Settings []string `json:"settings"`
}

// label is the policy's or setting's label (default: its name).
func (p GridPolicy) label() string  { return orName(p.Label, p.Name) }
func (s GridSetting) label() string { return orName(s.Label, s.Name) }

func orName(label, name string) string {
	if label != "" {
		return label
	}
	return name
}

// GridCell is the name of the cell of policy under setting.
func GridCell(policy, setting string) string { return policy + "-" + setting }

// expand adds the grid's cells and plots to e (before e is resolved,
// which checks them as any cell and plot).
func (g *Grid) expand(e *Experiment) error {
	if len(g.Policies) == 0 || len(g.Settings) == 0 {
		return fmt.Errorf("grid: want at least one policy and one setting, got %d and %d", len(g.Policies), len(g.Settings))
	}
	settings := map[string]GridSetting{}
	for _, s := range g.Settings {
		if err := checkName(s.Name); err != nil {
			return fmt.Errorf("grid: setting: %w", err)
		}
		if _, dup := settings[s.Name]; dup {
			return fmt.Errorf("grid: setting %q appears twice", s.Name)
		}
		settings[s.Name] = s
	}
	for _, s := range g.Settings {
		for _, p := range g.Policies {
			c := Cell{Name: GridCell(p.Name, s.Name), Label: p.label() + ", " + s.label(), Policy: p.Policy,
				Options: p.Options, Settings: s.Settings}
			if s.Workload != nil {
				w := *s.Workload
				c.Workload = &w
			}
			e.Cells = append(e.Cells, c)
		}
	}
	for _, gp := range g.Plots {
		if len(gp.Settings) == 0 {
			return fmt.Errorf("grid: plot %q: want the settings it shows", gp.Name)
		}
		p := PlotSpec{Name: gp.Name, Kind: gp.Kind, Title: gp.Title, Metric: gp.Metric, Scale: gp.Scale, XLabel: gp.XLabel, YLabel: gp.YLabel}
		for _, name := range gp.Settings {
			s, ok := settings[name]
			if !ok {
				return fmt.Errorf("grid: plot %q: unknown setting %q", gp.Name, name)
			}
			if gp.Kind == PlotBars {
				p.Groups = append(p.Groups, PlotGroup{Label: s.label()})
			}
		}
		for _, pol := range g.Policies {
			ser := PlotSeries{Label: pol.label()}
			for _, name := range gp.Settings {
				cell := GridCell(pol.Name, name)
				switch gp.Kind {
				case PlotLines:
					ser.Points = append(ser.Points, PlotPoint{X: settings[name].X, Cell: cell})
				case PlotBars:
					ser.Cells = append(ser.Cells, cell)
				default:
					return fmt.Errorf("grid: plot %q: kind %q; a grid draws lines or bars", gp.Name, gp.Kind)
				}
			}
			p.Series = append(p.Series, ser)
		}
		e.Plots = append(e.Plots, p)
	}
	return nil
}
