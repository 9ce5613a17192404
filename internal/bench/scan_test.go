package bench

import "unicode"

// minSamples is how many measurements at least a ratio is held on,
// whatever BENCHTIME: with -benchtime 1x (CI's short mode) the median of
// one would be noise. The extra ones are taken after the timed loop.
const minSamples = 25

// scanSink keeps plainScan's result alive, so the compiler keeps the scan.
var scanSink int

// plainScan is the baseline of the checks that read message text: one
// pass over s, rune by rune, lower-casing each and counting tag openings,
// the least a check of the text can do. A check's time is held as a
// ratio to it, measured side by side, not in milliseconds, which vary
// threefold with the load of a shared machine.
func plainScan(s string) {
	n := 0
	for _, r := range s {
		if unicode.ToLower(r) == '<' {
			n++
		}
	}
	scanSink += n
}
