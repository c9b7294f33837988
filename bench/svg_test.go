package bench_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/bench"
)

// TestWriteSVG checks that the chart is well-formed XML with a bar per
// kernel and configuration other than off, escaped names, and bars that
// grow with the ratio.
func TestWriteSVG(t *testing.T) {
	cells := []bench.Cell{
		cell("a<b", "off", 10, 1), cell("a<b", "plain", 100, 10), cell("a<b", "opt", 1000, 100),
		cell("c", "off", 10, 1), cell("c", "opt", 5, 0.5),
	}
	var b bytes.Buffer
	require.NoError(t, bench.WriteSVG(&b, cells))
	svg := b.String()
	dec := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			require.Equal(t, "EOF", err.Error())
			break
		}
	}
	require.Equal(t, 3, strings.Count(svg, "<title>"))
	require.Contains(t, svg, "a&lt;b plain: 10.00x")
	require.Contains(t, svg, `width="173.3"`) // log10(10)/3 of 520 px
	require.Contains(t, svg, `width="346.7"`) // log10(100)/3
	require.Contains(t, svg, `width="1.0"`)   // below 1x: a sliver
}
