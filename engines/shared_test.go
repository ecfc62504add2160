package engines

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

func TestTruncateOutput(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		truncated bool
	}{
		{"empty", "", false},
		{"exactly 4 KiB", strings.Repeat("a", 4096), false},
		{"one byte over", strings.Repeat("a", 4097), true},
		{"multi-byte runes across both cuts", strings.Repeat("é", 5000), true},
		{"4-byte runes", strings.Repeat("😀", 3000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := TruncateOutput(tt.in)
			assert.Equal(t, cut, tt.truncated)
			assert.Assert(t, utf8.ValidString(got), "output must stay valid UTF-8")
			if !cut {
				assert.Equal(t, got, tt.in)
				return
			}
			head, tail, ok := strings.Cut(got, "\n[... readme2demo: ")
			assert.Assert(t, ok, "the omission line is present")
			assert.Assert(t, len(head) <= OutputHeadBytes && len(head) > OutputHeadBytes-utf8.UTFMax)
			assert.Assert(t, strings.HasPrefix(tt.in, head))
			_, tail, _ = strings.Cut(tail, "omitted ...]\n")
			assert.Assert(t, len(tail) <= OutputTailBytes && len(tail) > OutputTailBytes-utf8.UTFMax)
			assert.Assert(t, strings.HasSuffix(tt.in, tail))
			assert.Assert(t, strings.Contains(got, " bytes of output omitted"))
		})
	}
	// The omitted count is exact.
	got, _ := TruncateOutput(strings.Repeat("x", 10000))
	assert.Assert(t, strings.Contains(got, "5904 bytes of output omitted"), got[3000:3100])
}

func TestTruncateClipped(t *testing.T) {
	// Text already clipped upstream reports the bytes dropped there too.
	got, cut := truncateClipped(strings.Repeat("x", 5000), 1000)
	assert.Assert(t, cut)
	assert.Assert(t, strings.Contains(got, "1904 bytes of output omitted"))
	got, cut = truncateClipped("short", 7)
	assert.Assert(t, cut)
	assert.Assert(t, strings.Contains(got, "7 bytes of output omitted"))
}

func TestScanMarkers(t *testing.T) {
	m := func(k commandlog.MarkerKind, text string) commandlog.Marker {
		return commandlog.Marker{Kind: k, Text: text}
	}
	tests := []struct {
		name string
		in   string
		want []commandlog.Marker
	}{
		{"success alone", "All done.\nSUCCESS", []commandlog.Marker{m(commandlog.MarkerSuccess, "")}},
		{"adjusted", "ADJUSTED_SUCCESS\n", []commandlog.Marker{m(commandlog.MarkerAdjustedSuccess, "")}},
		{"blocked with reason", "BLOCKED: needs a GPU", []commandlog.Marker{m(commandlog.MarkerBlocked, "needs a GPU")}},
		{"bare blocked", "BLOCKED", []commandlog.Marker{m(commandlog.MarkerBlocked, "")}},
		{"fix lines and bullets", "- FIX: run make all\n* FIX: add a step", []commandlog.Marker{m(commandlog.MarkerFix, "run make all"), m(commandlog.MarkerFix, "add a step")}},
		{"markdown emphasis", "**SUCCESS**\n`BLOCKED: no key`", []commandlog.Marker{m(commandlog.MarkerSuccess, ""), m(commandlog.MarkerBlocked, "no key")}},
		{"heading", "## ADJUSTED_SUCCESS", []commandlog.Marker{m(commandlog.MarkerAdjustedSuccess, "")}},
		{"bold label keeps code in the text", "**FIX:** create `.env` from `.env.example`", []commandlog.Marker{m(commandlog.MarkerFix, "create `.env` from `.env.example`")}},
		{"text starting with code", "FIX: `make all` replaces `make build`", []commandlog.Marker{m(commandlog.MarkerFix, "`make all` replaces `make build`")}},
		{"bold keyword, plain colon", "__BLOCKED__: needs `DATABASE_URL`", []commandlog.Marker{m(commandlog.MarkerBlocked, "needs `DATABASE_URL`")}},
		{"FIX without text is not a marker", "FIX:", nil},
		{"no space after the colon", "BLOCKED:reason", nil},
		{"CRLF", "FIX: a\r\nSUCCESS\r\n", []commandlog.Marker{m(commandlog.MarkerFix, "a"), m(commandlog.MarkerSuccess, "")}},
		{"inside a sentence does not count", "I will print SUCCESS when done. The step was not a SUCCESS", nil},
		{"lower case does not count", "success\nblocked: x", nil},
		{"prefix of a longer word", "SUCCESSFUL\nBLOCKEDX", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.DeepEqual(t, ScanMarkers(tt.in), tt.want)
		})
	}
}

// decideOutcome is the outcome of a whole list of markers.
func decideOutcome(markers []commandlog.Marker) (commandlog.Outcome, bool) {
	var t outcomeTally
	for _, m := range markers {
		t.add(m)
	}
	return t.decide()
}

func TestDecideOutcome(t *testing.T) {
	mk := func(kinds ...commandlog.MarkerKind) []commandlog.Marker {
		var out []commandlog.Marker
		for _, k := range kinds {
			out = append(out, commandlog.Marker{Kind: k})
		}
		return out
	}
	tests := []struct {
		name     string
		markers  []commandlog.Marker
		outcome  commandlog.Outcome
		adjusted bool
	}{
		{"none", nil, commandlog.OutcomeFailed, false},
		{"fix only", mk(commandlog.MarkerFix), commandlog.OutcomeFailed, false},
		{"success", mk(commandlog.MarkerSuccess), commandlog.OutcomeSuccess, false},
		{"adjusted", mk(commandlog.MarkerFix, commandlog.MarkerAdjustedSuccess), commandlog.OutcomeSuccess, true},
		{"blocked wins over success", mk(commandlog.MarkerSuccess, commandlog.MarkerBlocked), commandlog.OutcomeBlocked, false},
		{"blocked wins over adjusted", mk(commandlog.MarkerBlocked, commandlog.MarkerAdjustedSuccess), commandlog.OutcomeBlocked, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, adj := decideOutcome(tt.markers)
			assert.Equal(t, o, tt.outcome)
			assert.Equal(t, adj, tt.adjusted)
		})
	}
}

func TestStatusFor(t *testing.T) {
	assert.Equal(t, StatusFor(intPtr(0), false), commandlog.StatusOK)
	assert.Equal(t, StatusFor(intPtr(2), false), commandlog.StatusFailed)
	assert.Equal(t, StatusFor(intPtr(2), true), commandlog.StatusFailed)
	assert.Equal(t, StatusFor(nil, true), commandlog.StatusFailed)
	assert.Equal(t, StatusFor(nil, false), commandlog.StatusUnknown)
}

func TestShellQuote(t *testing.T) {
	assert.Equal(t, ShellQuote("/readme2demo/prompt.md"), "/readme2demo/prompt.md")
	assert.Equal(t, ShellQuote(""), "''")
	assert.Equal(t, ShellQuote("a b"), "'a b'")
	assert.Equal(t, ShellQuote("it's $HOME"), `'it'\''s $HOME'`)
}

// TestScanMarkersMatchesLineByLine compares ScanMarkers, which searches the
// whole text for the keywords, with the plain reading it replaces: every
// line parsed on its own. The texts mix marker lines, lines that name a
// keyword without being a marker (several keywords on one line, keywords
// in sentences), empty lines, CRLF and texts with and without a final line
// break.
func TestScanMarkersMatchesLineByLine(t *testing.T) {
	lineByLine := func(text string) []commandlog.Marker {
		var out []commandlog.Marker
		for _, line := range strings.Split(text, "\n") {
			if m, ok := parseMarkerLine(line); ok {
				out = append(out, m)
			}
		}
		return out
	}
	pieces := []string{
		"SUCCESS", "**SUCCESS**", "ADJUSTED_SUCCESS", "BLOCKED: no key", "BLOCKED", "FIX: run make", "- FIX: a step",
		"SUCCESS and BLOCKED and FIX", "a SUCCESS story", "FIX", "FIX:", "not a FIX: here", "BLOCKED: x SUCCESS",
		"", "\r", "plain text", "é SUCCESS", "SUCCESSFUL", "> BLOCKED: quoted",
	}
	seed := uint64(1)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for j := rnd(12); j > 0; j-- {
			b.WriteString(pieces[rnd(len(pieces))])
			if rnd(4) > 0 {
				b.WriteString([]string{"\n", "\r\n", " ", "\n\n"}[rnd(4)])
			}
		}
		text := b.String()
		// reflect.DeepEqual decides as go-cmp would on these plain
		// structs; go-cmp (5,000 times, most of the test's CPU) only reports.
		if got, want := ScanMarkers(text), lineByLine(text); !reflect.DeepEqual(got, want) {
			assert.DeepEqual(t, got, want)
		}
	}
}
