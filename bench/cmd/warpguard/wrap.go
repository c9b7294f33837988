package main

import "strings"

// wrap breaks s into lines of at most width columns, at spaces, for
// text whose every line starts with indent: the caller writes the first
// line's indent, wrap the others'. A word longer than a line gets a line
// of its own.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	col := len([]rune(indent))
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteString("\n" + indent)
			col = len([]rune(indent))
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}
