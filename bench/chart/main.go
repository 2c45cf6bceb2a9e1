// Command chart draws docs/performance.svg, the picture of docs/performance.md:
// for each row of a table (docs/performance.tsv: a label, then the lowest
// and highest ratio of our time to git's measured for it), a bar from 0 to
// the highest ratio, its part up to the lowest darker, beside git's 1.0.
//
//	go run ./bench/chart <docs/performance.tsv >docs/performance.svg
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// row is one bar: what was measured, and its range of ratios.
type row struct {
	label     string
	low, high float64
}

func main() {
	rows, err := read(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fatal: %v\n", err)
		os.Exit(128)
	}
	io.WriteString(os.Stdout, render(rows))
}

// read takes the table: tab-separated label, low and high; "#" starts a
// comment line.
func read(r io.Reader) ([]row, error) {
	var rows []row
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: want a label, a low and a high ratio, tab-separated", n)
		}
		low, err1 := strconv.ParseFloat(f[1], 64)
		high, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || low <= 0 || high < low || high > 3 {
			return nil, fmt.Errorf("line %d: ratios %q and %q", n, f[1], f[2])
		}
		rows = append(rows, row{f[0], low, high})
	}
	return rows, sc.Err()
}

// The picture's geometry, in pixels.
const (
	labelW = 330 // the labels' column
	barW   = 420 // ratio 0 to scaleMax
	rowH   = 26
	top    = 40
	width  = labelW + barW + 90
)

// scaleMax is the ratio at the bars' right end.
const scaleMax = 1.25

// render draws the rows as an SVG document.
func render(rows []row) string {
	var b strings.Builder
	height := top + rowH*len(rows) + 30
	x := func(ratio float64) float64 { return labelW + ratio/scaleMax*barW }
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="14" font-weight="bold">Our time / git's time (shorter is faster; git = 1.0)</text>`+"\n", 10)
	for i, r := range rows {
		y := top + i*rowH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-8, y+16, escape(r.label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="18" fill="#9ecae1"/>`+"\n", labelW, y+3, x(r.high)-labelW)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="18" fill="#3182bd"/>`+"\n", labelW, y+3, x(r.low)-labelW)
		text := fmt.Sprintf("%.2f×", r.low)
		if r.high != r.low {
			text = fmt.Sprintf("%.2f–%.2f×", r.low, r.high)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", x(r.high)+6, y+16, text)
	}
	bottom := top + rowH*len(rows)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#d62728" stroke-width="2"/>`+"\n", x(1), top-4, x(1), bottom+4)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#d62728">git</text>`+"\n", x(1), bottom+20)
	b.WriteString("</svg>\n")
	return b.String()
}

// escape makes s text of an XML element.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
