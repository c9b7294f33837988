package bench

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
)

// The chart's geometry, in px.
const (
	svgLabelW = 260 // kernel names
	svgPlotW  = 520 // the bars
	svgBarH   = 6
	svgGap    = 6 // between kernels
	svgTop    = 50
	svgMaxLog = 3 // the axis runs from 1x to 10^svgMaxLog x
)

// svgColors are the configurations' colors, in the order they appear.
func svgColors() []string {
	return []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1"}
}

// WriteSVG writes a horizontal bar chart of each kernel's overhead over
// detection off under each configuration, on a log scale from 1x to
// 1000x, like iGUARD's Figures 11 and 12. Cells without a ratio are left
// out.
func WriteSVG(w io.Writer, cells []Cell) error {
	var kernelsSeen, configs []string
	for _, c := range cells {
		if c.RatioVsOff <= 0 || c.Config == "off" {
			continue
		}
		if !slices.Contains(kernelsSeen, c.Kernel) {
			kernelsSeen = append(kernelsSeen, c.Kernel)
		}
		if !slices.Contains(configs, c.Config) {
			configs = append(configs, c.Config)
		}
	}
	groupH := len(configs)*svgBarH + svgGap
	height := svgTop + len(kernelsSeen)*groupH + 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="10">`+"\n", svgLabelW+svgPlotW+20, height)
	fmt.Fprintf(&b, `<text x="%d" y="14" font-size="12">detector overhead vs off (log scale)</text>`+"\n", svgLabelW)
	svgLegend(&b, configs)
	svgAxis(&b, height)
	for i, k := range kernelsSeen {
		y := svgTop + i*groupH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", svgLabelW-6, y+groupH/2+2, html.EscapeString(k))
		for j, cfg := range configs {
			i := slices.IndexFunc(cells, func(c Cell) bool { return c.Kernel == k && c.Config == cfg })
			if i < 0 || cells[i].RatioVsOff <= 0 {
				continue
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %.2fx</title></rect>`+"\n",
				svgLabelW, y+j*svgBarH, svgX(cells[i].RatioVsOff), svgBarH-1, svgColors()[j%len(svgColors())],
				html.EscapeString(k), cfg, cells[i].RatioVsOff)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// svgX is the bar length of ratio r: log10 scale, at least a sliver.
func svgX(r float64) float64 {
	return max(1, min(math.Log10(r), svgMaxLog)/svgMaxLog*svgPlotW)
}

func svgLegend(b *strings.Builder, configs []string) {
	for j, cfg := range configs {
		x := svgLabelW + j*80
		fmt.Fprintf(b, `<rect x="%d" y="24" width="10" height="10" fill="%s"/><text x="%d" y="33">%s</text>`+"\n",
			x, svgColors()[j%len(svgColors())], x+14, html.EscapeString(cfg))
	}
}

func svgAxis(b *strings.Builder, height int) {
	for p := 0; p <= svgMaxLog; p++ {
		x := svgLabelW + p*svgPlotW/svgMaxLog
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ccc"/><text x="%d" y="%d" text-anchor="middle">%gx</text>`+"\n",
			x, svgTop-4, x, height-16, x, height-4, math.Pow(10, float64(p)))
	}
}
