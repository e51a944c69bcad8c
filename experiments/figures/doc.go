// Package figures draws figures with gonum/plot, as PNG, SVG or PDF at page
// or column size: the figures an experiment lists (CDFs of JCT and ρ,
// timelines, lines against a setting, grouped bars, elastic clusters;
// Plot, RenderSVG), figures of one run's tables (Fig 6, co-adaptation;
// PlotRun) and of one application's profile (Fig 3, the throughput model
// against the measurements; PlotProfile). Every figure is a Kind, found by
// name in the binary's extensions (Builtin, WithKind; app.WithKind), so a
// new one is one file.
package figures
