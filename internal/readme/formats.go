package readme

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// README formats other than Markdown: reStructuredText (.rst, .rest) and
// AsciiDoc (.adoc, .asciidoc, .asc). Their code blocks, headings, the text
// before each block and the readme2demo hints (as the format's comments)
// become the same Doc a Markdown README gives; every block is made by
// blockOf, so commands are split the same way in every format.

// Format is a README's markup language.
type Format int

// The formats.
const (
	Markdown Format = iota
	ReStructuredText
	AsciiDoc
)

// FormatOf names the format of a README by its file name: .rst and .rest
// are reStructuredText, .adoc, .asciidoc and .asc AsciiDoc, anything else
// Markdown (README, README.md, README.markdown, README.txt).
func FormatOf(name string) Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".rst", ".rest":
		return ReStructuredText
	case ".adoc", ".asciidoc", ".asc":
		return AsciiDoc
	}
	return Markdown
}

// ParseFile reads a README in the format its name says.
func ParseFile(name string, src []byte) Doc {
	switch FormatOf(name) {
	case ReStructuredText:
		return parseRST(src)
	case AsciiDoc:
		return parseAsciiDoc(src)
	}
	return Parse(src)
}

// ExtractFile returns the code blocks of a README in the format its name
// says.
func ExtractFile(name string, src []byte) []Block { return ParseFile(name, src).Blocks }

// srcLines splits a document into its lines, without line ends.
func srcLines(src []byte) []string {
	ls := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	if n := len(ls); n > 0 && ls[n-1] == "" {
		ls = ls[:n-1]
	}
	return ls
}

// indentOf is the width of a line's leading white space (a tab counts 8).
func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}

// blank reports a line of white space only.
func blank(l string) bool { return strings.TrimSpace(l) == "" }

// paragraphs keeps the last paragraph of prose seen, for Block.Before.
type paragraphs struct {
	cur  []string
	last string
}

func (p *paragraphs) add(l string) { p.cur = append(p.cur, strings.TrimSpace(l)) }

// end closes the paragraph being read.
func (p *paragraphs) end() {
	if len(p.cur) > 0 {
		p.last = strings.Join(p.cur, " ")
		p.cur = nil
	}
}

// before is the text before a block: the paragraph right before it.
func (p *paragraphs) before() string {
	p.end()
	t := p.last
	if len(t) > maxBefore {
		t = t[len(t)-maxBefore:]
		if i := strings.IndexByte(t, ' '); i >= 0 {
			t = t[i+1:]
		}
	}
	return t
}

// sections tracks the headings a block stands under, with levels in the
// order the document first uses each style (reStructuredText's rule).
type sections struct {
	styles []string
	hs     []heading
}

func (s *sections) open(style, title string) {
	level := -1
	for i, st := range s.styles {
		if st == style {
			level = i
		}
	}
	if level < 0 {
		s.styles = append(s.styles, style)
		level = len(s.styles) - 1
	}
	s.openLevel(level, title)
}

func (s *sections) openLevel(level int, title string) {
	for len(s.hs) > 0 && s.hs[len(s.hs)-1].level >= level {
		s.hs = s.hs[:len(s.hs)-1]
	}
	s.hs = append(s.hs, heading{level: level, text: title})
}

// hintComment reads a readme2demo hint written as the format's comment
// ("readme2demo: skip"), as Markdown's HTML comment would give it.
func hintComment(text string, line int, h *Hints, doc *Doc) bool {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "readme2demo:") {
		return false
	}
	parseHints("<!-- "+t+" -->", line, h, doc)
	return true
}

var (
	// rstDirectiveRe is a code directive: .. code-block:: bash, .. code:: sh,
	// .. sourcecode:: console, .. prompt:: bash $
	rstDirectiveRe = regexp.MustCompile(`^(\s*)\.\.\s+(code-block|code|sourcecode|prompt)::\s*(\S*)`)
	// rstHighlightRe sets the language of the literal blocks that follow.
	rstHighlightRe = regexp.MustCompile(`^\.\.\s+highlight::\s*(\S+)`)
	rstCommentRe   = regexp.MustCompile(`^\.\.\s(.*)$`)
)

// rstAdornment reports a section title's underline (or overline): one
// punctuation character, repeated at least three times.
func rstAdornment(l string) bool {
	t := strings.TrimRight(l, " \t")
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'`#*+:._<>!$%&,;/?@\\|", rune(t[0])) {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// parseRST reads a reStructuredText README: `.. code-block:: LANG` (and
// `code`, `sourcecode`, `prompt`) directives, and literal blocks after a
// paragraph ending in `::` (in the language of the last `.. highlight::`,
// else unlabelled, like an indented Markdown block). Hints are comments:
// `.. readme2demo: skip`.
func parseRST(src []byte) Doc {
	ls := srcLines(src)
	var doc Doc
	var pending Hints
	var secs sections
	var para paragraphs
	highlight := ""
	literalNext := false // the paragraph before ended in "::"
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		switch {
		case blank(l):
			para.end()
			continue
		case i+1 < len(ls) && !blank(l) && indentOf(l) == 0 && rstAdornment(ls[i+1]) &&
			len(strings.TrimSpace(ls[i+1])) >= len(strings.TrimSpace(l)) && !rstAdornment(l):
			// A title and its underline (an overline above it was passed
			// over as its own line).
			style := ls[i+1][:1]
			if i > 0 && rstAdornment(ls[i-1]) {
				style = "over" + style
			}
			para.end()
			para.last = ""
			secs.open(style, strings.TrimSpace(l))
			i++
			continue
		case rstAdornment(l) && indentOf(l) == 0:
			continue // an overline
		}
		if m := rstDirectiveRe.FindStringSubmatch(l); m != nil {
			lang := strings.ToLower(m[3])
			if m[2] == "prompt" && lang == "" {
				lang = "console"
			}
			base := len(m[1])
			j := i + 1
			for j < len(ls) && !blank(ls[j]) && strings.HasPrefix(strings.TrimSpace(ls[j]), ":") && indentOf(ls[j]) > base {
				j++ // the directive's options (:linenos:, :caption: …)
			}
			body, next := rstBody(ls, j, base)
			doc.Blocks = appendRST(doc.Blocks, lang, false, body, pending, secs, para.before())
			pending, para.last = Hints{}, ""
			i = next - 1
			continue
		}
		if m := rstHighlightRe.FindStringSubmatch(l); m != nil {
			highlight = strings.ToLower(m[1])
			continue
		}
		if m := rstCommentRe.FindStringSubmatch(l); m != nil && indentOf(l) == 0 {
			hintComment(m[1], i+1, &pending, &doc)
			continue
		}
		if literalNext && indentOf(l) > 0 {
			body, next := rstBody(ls, i, 0)
			doc.Blocks = appendRST(doc.Blocks, highlight, highlight == "", body, pending, secs, para.before())
			pending, para.last = Hints{}, ""
			literalNext = false
			i = next - 1
			continue
		}
		literalNext = false
		t := strings.TrimSpace(l)
		if strings.HasSuffix(t, "::") {
			literalNext = true
			// "Install it::" reads "Install it:"; a lone "::" adds nothing.
			if t = strings.TrimSuffix(t, ":"); t == ":" {
				continue
			}
		}
		para.add(t)
	}
	return doc
}

// rstBody reads the indented body of a block that starts at line i (after
// any blank lines): every line indented deeper than base, up to the first
// that is not; the common indentation is removed.
func rstBody(ls []string, i, base int) (body []Line, next int) {
	for i < len(ls) && blank(ls[i]) {
		i++
	}
	j := i
	for j < len(ls) && (blank(ls[j]) || indentOf(ls[j]) > base) {
		j++
	}
	for j > i && blank(ls[j-1]) {
		j--
	}
	cut := -1
	for k := i; k < j; k++ {
		if !blank(ls[k]) && (cut < 0 || indentOf(ls[k]) < cut) {
			cut = indentOf(ls[k])
		}
	}
	for k := i; k < j; k++ {
		body = append(body, Line{Text: dedent(ls[k], cut), Line: k + 1})
	}
	return body, j
}

// dedent removes n columns of leading white space.
func dedent(l string, n int) string {
	w := 0
	for i, c := range l {
		if w >= n || (c != ' ' && c != '\t') {
			return l[i:]
		}
		if c == '\t' {
			w += 8 - w%8
		} else {
			w++
		}
	}
	return ""
}

func appendRST(bs []Block, lang string, indented bool, body []Line, h Hints, secs sections, before string) []Block {
	if len(body) == 0 {
		return bs
	}
	b := blockOf(lang, indented, body, h)
	b.Headings, b.Before = headingTexts(secs.hs), before
	return append(bs, b)
}

var (
	// adocHeadingRe is a section title: = Title, == Section, ### Markdown style.
	adocHeadingRe = regexp.MustCompile(`^(={1,6}|#{1,6})\s+(\S.*)$`)
	// adocAttrRe is a block attribute line: [source,bash], [,sh], [listing].
	adocAttrRe = regexp.MustCompile(`^\[([^\]]*)\]\s*$`)
	// adocTitleRe is a block title: .Install on Linux
	adocTitleRe = regexp.MustCompile(`^\.([^.\s].*)$`)
	// adocDefaultLangRe is the document's default source language.
	adocDefaultLangRe = regexp.MustCompile(`^:source-language:\s*(\S+)`)
)

// parseAsciiDoc reads an AsciiDoc README: listing (----) and literal (....)
// blocks, with the language of a [source,LANG] attribute line before them
// (else the document's :source-language:, else unlabelled). A block
// title (.Install on Linux) counts as the text before the block. Hints are
// line comments: // readme2demo: skip
func parseAsciiDoc(src []byte) Doc {
	ls := srcLines(src)
	var doc Doc
	var pending Hints
	var secs sections
	var para paragraphs
	defaultLang, attrLang, hasAttr, title := "", "", false, ""
	for i := 0; i < len(ls); i++ {
		l := strings.TrimRight(ls[i], " \t")
		switch {
		case blank(l):
			para.end()
			continue
		case strings.HasPrefix(l, "////"):
			for i++; i < len(ls) && !strings.HasPrefix(ls[i], "////"); i++ {
			}
			continue
		case strings.HasPrefix(l, "//"):
			hintComment(strings.TrimPrefix(l, "//"), i+1, &pending, &doc)
			continue
		}
		if m := adocDefaultLangRe.FindStringSubmatch(l); m != nil {
			defaultLang = strings.ToLower(m[1])
			continue
		}
		if m := adocHeadingRe.FindStringSubmatch(l); m != nil {
			para.end()
			para.last = ""
			secs.openLevel(len(m[1]), strings.TrimSpace(m[2]))
			continue
		}
		if i+1 < len(ls) {
			if level := adocUnderline(l, strings.TrimRight(ls[i+1], " \t")); level > 0 {
				// A two-line section title: its underline is no delimiter.
				para.end()
				para.last = ""
				secs.openLevel(level, strings.TrimSpace(l))
				i++
				continue
			}
		}
		if m := adocAttrRe.FindStringSubmatch(l); m != nil {
			attrLang, hasAttr = adocLang(m[1], defaultLang)
			continue
		}
		if m := adocTitleRe.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, "..") {
			title = strings.TrimSpace(m[1])
			continue
		}
		if delim := strings.TrimSpace(l); len(delim) >= 4 && (strings.Trim(delim, "-") == "" || strings.Trim(delim, ".") == "") {
			j := i + 1
			for j < len(ls) && strings.TrimRight(ls[j], " \t") != delim {
				j++
			}
			var body []Line
			for k := i + 1; k < j && k < len(ls); k++ {
				body = append(body, Line{Text: ls[k], Line: k + 1})
			}
			lang := attrLang
			if !hasAttr && delim[0] == '-' {
				lang = "" // a listing block with no language
			}
			before := para.before()
			if title != "" {
				before = strings.TrimSpace(before + " " + title)
			}
			if len(body) > 0 {
				b := blockOf(lang, false, body, pending)
				b.Headings, b.Before = headingTexts(secs.hs), before
				doc.Blocks = append(doc.Blocks, b)
			}
			pending, attrLang, hasAttr, title, para.last = Hints{}, "", false, "", ""
			i = j
			continue
		}
		if delim := strings.TrimSpace(l); len(delim) >= 4 && strings.Trim(delim, delim[:1]) == "" && strings.ContainsAny(delim[:1], "=*_+") {
			// An example, sidebar, quote or passthrough block's delimiter:
			// its content is prose.
			para.end()
			attrLang, hasAttr, title = "", false, ""
			continue
		}
		attrLang, hasAttr, title = "", false, ""
		para.add(l)
	}
	return doc
}

// adocUnderline reports the level of a two-line section title, title
// over underline (1 for ===, 2 for ---, then ~~~, ^^^, +++), 0 when the pair
// is none: as Asciidoctor reads it, an underline of one repeated character
// whose length is the title's within one character, under a title line
// that is no block title, attribute list, delimiter or list item.
func adocUnderline(title, under string) int {
	if len(under) < 2 || strings.Trim(under, under[:1]) != "" {
		return 0
	}
	level := strings.IndexByte("=-~^+", under[0]) + 1
	t := strings.TrimSpace(title)
	if level == 0 || t == "" || t != title || strings.ContainsAny(t[:1], ".[/*-=+~^|<") {
		return 0
	}
	if n := utf8.RuneCountInString(t); n-len(under) > 1 || len(under)-n > 1 {
		return 0
	}
	return level
}

// adocLang reads the language of a block attribute list: "source,bash",
// ",sh", "source" (the default language); ok is false for attributes that
// are not about source (a [NOTE], an anchor).
func adocLang(attrs, defaultLang string) (lang string, ok bool) {
	parts := strings.Split(attrs, ",")
	style := strings.TrimSpace(parts[0])
	switch style {
	case "source", "", "listing", "literal":
	default:
		return "", false
	}
	if len(parts) > 1 {
		if l := strings.TrimSpace(parts[1]); l != "" && !strings.Contains(l, "=") {
			return strings.ToLower(l), true
		}
	}
	if style == "source" {
		return defaultLang, true
	}
	return "", true
}
