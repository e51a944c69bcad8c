// Package figures draws figures with gonum/plot, as PNG, SVG or PDF at page
// or column size: the figures an experiment lists (CDFs of JCT and ρ,
// timelines, lines against a setting, grouped bars, elastic clusters;
// Plot, RenderSVG), Fig 6 (co-adaptation, from a run's tables;
// PlotCoAdaptation) and Fig 3 (the throughput model against the
// measurements; PlotProfileFit).
package figures
