package figures

import (
	"bytes"
	"html"
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// svgText matches a text element as gonum's SVG canvas writes it, x at
// the left end of the text (gonum aligns text itself), with the rotation
// group of a y axis label before it if any.
var svgText = regexp.MustCompile(`(<g transform="rotate\([^)]*\)">\s*)?<text x="([-0-9.e]+)" y="[-0-9.e]+" transform="scale\(1, -1\)"\s*style="[^"]*font-size:([0-9.]+)px[^"]*">([^<]*)</text>`)

// TestFigureTextInside: every horizontal text of every figure (tick
// labels, titles, legend, caption) lies within the figure, at both sizes,
// with room to its right for antialiasing or a slightly wider fallback
// font. Before, gonum laid the last x tick label flush with the right edge
// (a column PNG read "10(" for 100) and the Fig 5 title ran past both
// edges of a column figure.
func TestFigureTextInside(t *testing.T) {
	full := exptest.TinyFull(t)
	exp, runs, _, err := sweep.OpenSweep(full, exptest.Ext())
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]Figure{}
	for _, nf := range figures(exp, runs) {
		if nf.err != nil {
			t.Fatal(nf.err)
		}
		figs[nf.spec.Name] = nf.fig
	}
	run := t.TempDir()
	exptest.RunWithOptions(t, "pollux", "", run)
	if figs["fig6"], err = coAdaptation(RunInput{Dir: run}); err != nil {
		t.Fatal(err)
	}
	const slack = 3 // points: antialiasing, and a fallback font ~ 1.3× as wide on a centred two-digit label
	style := newPlot("", "", "").Title.TextStyle
	for name, fig := range figs {
		for _, size := range []FigureSize{SizeWide, SizeColumn} {
			var buf bytes.Buffer
			if err := fig.render(&buf, "svg", size); err != nil {
				t.Fatal(err)
			}
			width := float64(fig.w)
			if size == SizeColumn {
				width = float64(columnWidth / columnScale)
			}
			texts := svgText.FindAllSubmatch(buf.Bytes(), -1)
			if len(texts) < 5 {
				t.Fatalf("%s %s: %d texts found; the pattern no longer matches gonum's SVG", name, size, len(texts))
			}
			for _, m := range texts {
				if len(m[1]) > 0 {
					continue // rotated: its x is along the y axis
				}
				x, _ := strconv.ParseFloat(string(m[2]), 64)
				pt, _ := strconv.ParseFloat(string(m[3]), 64)
				s := html.UnescapeString(string(m[4]))
				style.Font.Size = vg.Length(pt)
				right := x + float64(style.Width(s))
				if x < 0 || right > width-slack {
					t.Errorf("%s %s: %q spans [%.1f, %.1f] pt of a %.1f pt figure (want [0, %.1f])", name, size, s, x, right, width, width-slack)
				}
			}
		}
	}
	// Rendering leaves the figure as it was (titles are wrapped per size).
	var before, column, after bytes.Buffer
	tl := figs["timeline"]
	for _, r := range []struct {
		buf  *bytes.Buffer
		size FigureSize
	}{{&before, SizeWide}, {&column, SizeColumn}, {&after, SizeWide}} {
		if err := tl.render(r.buf, "svg", r.size); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(before.Bytes(), after.Bytes()) {
		t.Error("a wide render after a column render differs from the first")
	}
}
