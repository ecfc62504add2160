package commandlog

import (
	"strconv"
	"unicode/utf8"
)

// AppendMarker appends m as encoding/json would indent it inside the
// markers list (prefix "    ", indent "  ", no HTML escaping), without the
// leading indentation. The items of a log's lists are most of a large log,
// so they skip reflection; TestEncode* compare the bytes with encoding/json.
func AppendMarker(b []byte, m *Marker) []byte {
	b = append(b, "{\n      \"kind\": "...)
	b = appendString(b, string(m.Kind))
	b = append(b, ",\n      \"text\": "...)
	b = appendString(b, m.Text)
	return append(b, "\n    }"...)
}

// AppendFileEdit is AppendMarker for an item of file_edits.
func AppendFileEdit(b []byte, e *FileEdit) []byte {
	b = append(b, "{\n      \"path\": "...)
	b = appendString(b, e.Path)
	b = append(b, ",\n      \"tool\": "...)
	b = appendString(b, e.Tool)
	b = append(b, ",\n      \"ok\": "...)
	b = strconv.AppendBool(b, e.OK)
	return append(b, "\n    }"...)
}

// AppendCommand is AppendMarker for an item of commands.
func AppendCommand(b []byte, c *Command) []byte {
	b = append(b, "{\n      \"id\": "...)
	b = appendString(b, c.ID)
	b = append(b, ",\n      \"command\": "...)
	b = appendString(b, c.Command)
	b = append(b, ",\n      \"output\": "...)
	b = appendString(b, c.Output)
	b = append(b, ",\n      \"exit_code\": "...)
	if c.ExitCode == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*c.ExitCode), 10)
	}
	b = append(b, ",\n      \"status\": "...)
	b = appendString(b, string(c.Status))
	b = append(b, ",\n      \"truncated\": "...)
	b = strconv.AppendBool(b, c.Truncated)
	if c.ParentID != "" {
		b = append(b, ",\n      \"parent_id\": "...)
		b = appendString(b, c.ParentID)
	}
	if c.DurationMS != nil {
		b = append(b, ",\n      \"duration_ms\": "...)
		b = strconv.AppendInt(b, *c.DurationMS, 10)
	}
	if c.Source != nil {
		b = append(b, ",\n      \"source\": {\n        \"file\": "...)
		b = appendString(b, c.Source.File)
		b = append(b, ",\n        \"line\": "...)
		b = strconv.AppendInt(b, int64(c.Source.Line), 10)
		b = append(b, "\n      }"...)
	}
	if c.Environment != nil {
		b = append(b, ",\n      \"environment\": {\n        \"kind\": "...)
		b = appendString(b, c.Environment.Kind)
		b = append(b, ",\n        \"detail\": "...)
		b = appendString(b, c.Environment.Detail)
		b = append(b, "\n      }"...)
	}
	return append(b, "\n    }"...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string exactly as encoding/json does
// with SetEscapeHTML(false): invalid UTF-8 becomes \ufffd, U+2028 and
// U+2029 are escaped, control characters use short escapes where JSON has
// them and \u00XX otherwise.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
