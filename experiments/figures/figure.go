package figures

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"regexp"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// FigureSize names a figure size.
type FigureSize string

// Figure sizes: Wide for a page or a screen (the figure's own size, about
// 8 in wide, 10–12 pt text); Column for one column of a two-column paper
// (3.4 in wide, the same layout scaled to 7.5–9 pt text).
const (
	SizeWide   FigureSize = "wide"
	SizeColumn FigureSize = "column"
)

// Figure formats Plot can write.
var FigureFormats = []string{"png", "svg", "pdf"}

// pngDPI is the resolution of PNG figures.
const pngDPI = 110

// columnWidth and columnScale make a Column figure: its layout is that of
// a figure columnWidth/columnScale wide, drawn scaled by columnScale.
const (
	columnWidth = 3.4 * vg.Inch
	columnScale = 0.75
)

// Figure is one or more plots stacked vertically, sharing the x axis, with
// one legend below them (outside the data, so it never hides a line) and
// a caption line naming the inputs (set by Plot and RenderSVG). A figure
// kind's Draw makes one with NewFigure.
type Figure struct {
	plots   []*plot.Plot
	legend  *Legend
	caption string
	w, h    vg.Length
}

// Legend collects a figure's legend entries; they are laid out in as many
// columns as fit below the plots.
type Legend struct {
	names  []string
	thumbs [][]plot.Thumbnailer
}

// NewLegend makes an empty figure legend.
func NewLegend() *Legend { return &Legend{} }

// NewFigure makes a figure of plots stacked top to bottom, with legend
// (nil: none) below them, w × h in size before Plot scales it to the page
// or column size.
func NewFigure(plots []*plot.Plot, legend *Legend, w, h vg.Length) Figure {
	if legend == nil {
		legend = NewLegend()
	}
	return Figure{plots: plots, legend: legend, w: w, h: h}
}

// Add adds an entry drawn with the given thumbnails.
func (l *Legend) Add(name string, thumbs ...plot.Thumbnailer) {
	l.names = append(l.names, name)
	l.thumbs = append(l.thumbs, thumbs)
}

func legendStyle() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(10)
	l.ThumbnailWidth = vg.Points(26)
	l.Padding = vg.Points(2)
	l.Top, l.Left = true, true
	return l
}

// layout splits the entries into columns that fit in width w; it returns
// one plot.Legend per column and the height they need.
func (l *Legend) layout(w vg.Length) ([]plot.Legend, vg.Length) {
	if l == nil || len(l.names) == 0 {
		return nil, 0
	}
	st := legendStyle()
	widest := vg.Length(0)
	for _, n := range l.names {
		widest = max(widest, st.TextStyle.Width(n))
	}
	entryW := widest + st.ThumbnailWidth + st.Padding*4 + vg.Points(10)
	cols := max(1, min(len(l.names), int(w/entryW)))
	rows := (len(l.names) + cols - 1) / cols
	legs := make([]plot.Legend, cols)
	for c := range legs {
		legs[c] = legendStyle()
	}
	// Column-major order, so entries read down then across.
	for i, n := range l.names {
		legs[i/rows].Add(n, l.thumbs[i]...)
	}
	lineH := st.TextStyle.Height("Xg") + st.Padding
	return legs, vg.Length(rows)*lineH + st.Padding*2
}

// render draws the figure on a canvas of format ext (png, svg, pdf) in the
// given size and writes it to w. The plots keep their aspect; the legend
// and caption are added below them.
func (f Figure) render(w io.Writer, ext string, size FigureSize) error {
	lw, scale := f.w, 1.0 // layout width
	if size == SizeColumn {
		scale = columnScale
		lw = columnWidth / columnScale
	}
	pad := vg.Points(4)
	capStyle := draw.TextStyle{Color: color.Gray{Y: 80}, Font: legendStyle().TextStyle.Font, XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: legendStyle().TextStyle.Handler}
	capStyle.Font.Size = vg.Points(8)
	var capLines []string
	if f.caption != "" {
		capLines = wrapText(capStyle, f.caption, lw-2*pad)
	}
	capH := vg.Length(len(capLines)) * capStyle.Height("Xg")
	legs, legH := f.legend.layout(lw - 2*pad)
	plotH := f.h * lw / f.w
	if size == SizeColumn {
		plotH = max(plotH, vg.Length(len(f.plots))*2.0*vg.Inch)
	}
	lh := plotH + legH + capH + 2*pad
	pw, ph := vg.Length(float64(lw)*scale), vg.Length(float64(lh)*scale)
	var c vg.CanvasWriterTo
	switch ext {
	case "png":
		c = smallPNG{vgimg.NewWith(vgimg.UseWH(pw, ph), vgimg.UseDPI(pngDPI))}
	case "svg":
		c = vgsvg.New(pw, ph)
	case "pdf":
		pc := vgpdf.New(pw, ph)
		pc.EmbedFonts(true)
		c = pc
	default:
		return fmt.Errorf("unknown figure format %q (use %s)", ext, strings.Join(FigureFormats, ", "))
	}
	// White background (PNG would be transparent).
	bg := draw.New(c)
	bg.SetColor(color.White)
	bg.Fill(bg.Rectangle.Path())
	if scale != 1 {
		c.Scale(scale, scale)
	}
	dc := draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Max: vg.Point{X: lw, Y: lh}}}
	// Caption at the bottom, legend above it, plots above both.
	for i := len(capLines) - 1; i >= 0; i-- {
		dc.FillText(capStyle, vg.Point{X: pad, Y: dc.Min.Y + pad/2}, capLines[i])
		dc.Min.Y += capStyle.Height("Xg")
	}
	dc.Min.Y += pad
	if len(legs) > 0 {
		colW := (lw - 2*pad) / vg.Length(len(legs))
		for i := range legs {
			strip := dc
			strip.Min.X = pad + vg.Length(i)*colW
			strip.Max.X = strip.Min.X + colW
			strip.Max.Y = dc.Min.Y + legH
			legs[i].Draw(strip)
		}
		dc.Min.Y += legH + pad
	}
	dc.Max.X -= rightMargin
	t := draw.Tiles{Rows: len(f.plots), Cols: 1, PadY: vg.Points(6), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2)}
	defer wrapTitles(f.plots, dc.Max.X-dc.Min.X-t.PadLeft)()
	if len(f.plots) == 1 {
		f.plots[0].Draw(dc)
	} else {
		rows := make([][]*plot.Plot, len(f.plots))
		for i, p := range f.plots {
			rows[i] = []*plot.Plot{p}
		}
		canvases := plot.Align(rows, t, dc)
		for i, p := range f.plots {
			p.Draw(canvases[i][0])
		}
	}
	if ext != "svg" {
		_, err := c.WriteTo(w)
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(svgFontFallback(buf.Bytes()))
	return err
}

// rightMargin keeps the plots off the figure's right edge. gonum lays the
// last x tick label flush with the edge, so a PNG's antialiasing or an SVG
// viewer's wider fallback font cut it ("100" read "10("); 8 pt holds a
// fallback font about half as wide again on a three-digit label.
const rightMargin vg.Length = 8 // points, vg's unit

// wrapTitles breaks the titles of plots wider than w into lines (a column
// figure's title was cut at both ends) and returns the function that
// restores them, so that a figure renders alike at every size and format.
func wrapTitles(plots []*plot.Plot, w vg.Length) (restore func()) {
	old := make([]string, len(plots))
	for i, p := range plots {
		old[i] = p.Title.Text
		if p.Title.Text != "" && p.Title.TextStyle.Width(p.Title.Text) > w {
			p.Title.Text = strings.Join(wrapText(p.Title.TextStyle, p.Title.Text, w), "\n")
		}
	}
	return func() {
		for i, p := range plots {
			p.Title.Text = old[i]
		}
	}
}

// save writes the figure to path in format ext, atomically.
func (f Figure) save(path, ext string, size FigureSize) error {
	return atomicfile.Write(path, func(w io.Writer) error { return f.render(w, ext, size) })
}

// wrapText breaks s at spaces into lines no wider than w.
func wrapText(ts draw.TextStyle, s string, w vg.Length) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && ts.Width(line+" "+word) > w {
			lines = append(lines, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

var svgFontFamily = regexp.MustCompile(`font-family:([^;"]+);`)

// svgFontFallback gives every font-family of an SVG generic fallbacks,
// so that it renders with a similar font where the named one is missing.
func svgFontFallback(svg []byte) []byte {
	return svgFontFamily.ReplaceAllFunc(svg, func(m []byte) []byte {
		name := strings.Trim(string(svgFontFamily.FindSubmatch(m)[1]), `'" `)
		var fb string
		switch {
		case strings.Contains(name, "Mono"):
			fb = "'DejaVu Sans Mono',Menlo,Consolas,monospace"
		case strings.Contains(name, "Sans"):
			fb = "Arial,Helvetica,'DejaVu Sans',sans-serif"
		default:
			fb = "'Times New Roman',Times,'DejaVu Serif',serif"
		}
		return []byte("font-family:'" + name + "'," + fb + ";")
	})
}

// svgInline is an SVG document without its XML prolog, for inlining in HTML.
func svgInline(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		return svg[i:]
	}
	return svg
}
