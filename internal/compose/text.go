package compose

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tags that break the text: a line break, or a blank line between blocks.
var lineTags = map[string]bool{
	"li": true, "tr": true, "div": true, "title": true, "pre": true, "dt": true, "dd": true,
}
var paragraphTags = map[string]bool{
	"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "dl": true, "table": true, "blockquote": true, "hr": true,
	"section": true, "article": true, "header": true, "footer": true,
}

// skipTags have content that is not text a reader should see.
var skipTags = map[string]bool{"script": true, "style": true, "head": true, "template": true}

// HTMLToText derives the text/plain alternative from HTML: tags stripped
// (block tags become line breaks, script/style/head dropped), entities
// decoded, whitespace collapsed. It is a plain scanner, not a renderer: it
// never fails and never executes anything.
func HTMLToText(s string) string {
	var w textWriter
	w.b.Grow(len(s))
	var href string // of the <a> being read
	var linkStart int
	for i := 0; i < len(s); {
		if s[i] != '<' {
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				j = len(s) - i
			}
			w.text(html.UnescapeString(s[i : i+j]))
			i += j
			continue
		}
		if strings.HasPrefix(s[i:], "<!--") {
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		// A '<' not followed by a tag start is text (e.g. "a < b").
		if i+1 >= len(s) || !(isLetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?') {
			w.text("<")
			i++
			continue
		}
		end := tagEnd(s, i+1)
		tag := s[i+1 : end]
		if end < len(s) {
			end++ // past '>'
		}
		i = end
		name, closing := tagName(tag)
		switch {
		case skipTags[name] && !closing:
			// Drop everything up to the matching close tag.
			k := indexFold(s[i:], "</"+name)
			if k < 0 {
				i = len(s)
				continue
			}
			i += k
		case name == "br":
			w.pending = min(w.pending+1, 2) // <br><br> is a paragraph break
		case lineTags[name]:
			w.pending = max(w.pending, 1)
		case paragraphTags[name]:
			w.pending = 2
		case name == "td" || name == "th":
			w.space = true
		case name == "a" && !closing:
			href, linkStart = attr(tag, "href"), w.b.Len()
		case name == "a" && closing:
			// Keep the target of a link findable for text-only readers,
			// unless the link text already shows it.
			text := strings.TrimSpace(w.b.String()[min(linkStart, w.b.Len()):])
			if showable(href) && text != href && text != strings.TrimPrefix(href, "mailto:") {
				w.text(" (" + href + ")")
			}
			href = ""
		}
	}
	return w.b.String()
}

// showable reports whether a link's target is worth showing a text-only
// reader: http(s) or mailto, without what no URL holds (white space,
// quotes, angle brackets), which would read as markup in the text.
func showable(href string) bool {
	if !strings.HasPrefix(href, "http://") && !strings.HasPrefix(href, "https://") && !strings.HasPrefix(href, "mailto:") {
		return false
	}
	return !strings.ContainsFunc(href, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '<' || r == '>' || r == '"'
	})
}

// textWriter collapses whitespace as it writes: a run of spaces becomes one
// space and pending breaks are written only before the next visible text,
// so output has no leading, trailing or doubled blank space.
type textWriter struct {
	b       strings.Builder
	pending int  // line breaks owed before the next text
	space   bool // a space is owed before the next text
}

func (w *textWriter) text(s string) {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf { // a run of ASCII at once
			if c == ' ' || '\t' <= c && c <= '\r' {
				w.space = true
				i++
				continue
			}
			end := i + 1
			for end < len(s) && s[end] < utf8.RuneSelf && s[end] != ' ' && !('\t' <= s[end] && s[end] <= '\r') {
				end++
			}
			w.owed()
			w.b.WriteString(s[i:end])
			i = end
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:]) // an invalid byte: U+FFFD, as range reads it
		i += n
		if unicode.IsSpace(r) {
			w.space = true
			continue
		}
		w.owed()
		w.b.WriteRune(r)
	}
}

// owed writes the breaks or space owed before the next text.
func (w *textWriter) owed() {
	switch {
	case w.pending > 0:
		if w.b.Len() > 0 {
			w.b.WriteString("\n\n"[:w.pending])
		}
	case w.space && w.b.Len() > 0:
		w.b.WriteByte(' ')
	}
	w.pending, w.space = 0, false
}

// tagEnd returns the index of the '>' closing the tag whose name starts at
// i (i > 0), skipping quoted attribute values; len(s) if there is none.
func tagEnd(s string, i int) int {
	var quote byte
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case (c == '"' || c == '\'') && s[i-1] == '=':
			quote = c // only a value after '=' is quoted, not an apostrophe
		case c == '>':
			return i
		}
	}
	return len(s)
}

func tagName(tag string) (name string, closing bool) {
	if strings.HasPrefix(tag, "/") {
		closing = true
		tag = tag[1:]
	}
	n := 0
	for n < len(tag) && (isLetter(tag[n]) || (n > 0 && tag[n] >= '0' && tag[n] <= '9')) {
		n++
	}
	return strings.ToLower(tag[:n]), closing
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// indexFold is strings.Index ignoring ASCII case; sub must be lower case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && lower(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return i
		}
	}
	return -1
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// attr returns the entity-decoded value of attribute name in a tag's
// source ("a href='x' class=y"), or "".
func attr(tag, name string) string {
	i := 0
	for i < len(tag) && tag[i] != ' ' && tag[i] != '\t' && tag[i] != '\n' && tag[i] != '\r' && tag[i] != '/' {
		i++ // tag name
	}
	for i < len(tag) {
		for i < len(tag) && (tag[i] == ' ' || tag[i] == '\t' || tag[i] == '\n' || tag[i] == '\r' || tag[i] == '/') {
			i++
		}
		start := i
		for i < len(tag) && tag[i] != '=' && tag[i] != ' ' && tag[i] != '\t' && tag[i] != '\n' && tag[i] != '\r' && tag[i] != '/' {
			i++
		}
		key := strings.ToLower(tag[start:i])
		if i >= len(tag) || tag[i] != '=' {
			if i == start {
				i++
			}
			continue
		}
		i++ // '='
		var val string
		if i < len(tag) && (tag[i] == '"' || tag[i] == '\'') {
			q := tag[i]
			end := strings.IndexByte(tag[i+1:], q)
			if end < 0 {
				end = len(tag) - i - 1
			}
			val = tag[i+1 : i+1+end]
			i += end + 2
		} else {
			start := i
			for i < len(tag) && tag[i] != ' ' && tag[i] != '\t' && tag[i] != '\n' && tag[i] != '\r' {
				i++
			}
			val = tag[start:i]
		}
		if key == name {
			return strings.TrimSpace(html.UnescapeString(val))
		}
	}
	return ""
}
