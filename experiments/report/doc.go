// Package report writes a sweep's self-contained HTML report: the result
// first (ratios and cells with their confidence intervals), the figures
// inline as SVG, and the provenance of every number.
package report
