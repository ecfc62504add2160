package commandlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func ip(n int) *int { return &n }

func valid() *Log {
	return &Log{SchemaVersion: 1, Engine: "claude-code", Outcome: OutcomeSuccess,
		Commands: []Command{{ID: "a", Command: "ls", ExitCode: ip(0), Status: StatusOK}}}
}

func TestEncodeStableOrderAndNulls(t *testing.T) {
	var buf bytes.Buffer
	l := &Log{Engine: "claude-code", Outcome: OutcomeFailed}
	assert.NilError(t, Encode(&buf, l))
	want := `{
  "schema_version": 1,
  "engine": "claude-code",
  "agent_version": null,
  "outcome": "failed",
  "adjusted": false,
  "markers": [],
  "commands": [],
  "file_edits": [],
  "cost_usd": null,
  "turns": null,
  "duration_ms": null,
  "parse_stats": {
    "lines": 0,
    "malformed": 0,
    "unknown_events": 0
  }
}
`
	assert.Equal(t, buf.String(), want)
}

func TestEncodeKeepsHTMLReadable(t *testing.T) {
	var buf bytes.Buffer
	l := valid()
	l.Commands[0].Output = "<b> & </b>"
	assert.NilError(t, Encode(&buf, l))
	assert.Assert(t, strings.Contains(buf.String(), `"<b> & </b>"`))
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*Log)
		want   string
	}{
		{"valid", func(*Log) {}, ""},
		{"schema", func(l *Log) { l.SchemaVersion = 2 }, "schema_version is 2"},
		{"engine", func(l *Log) { l.Engine = "" }, "engine is empty"},
		{"outcome", func(l *Log) { l.Outcome = "passed" }, `outcome "passed"`},
		{"adjusted needs success", func(l *Log) { l.Outcome = OutcomeFailed; l.Adjusted = true }, "adjusted is true"},
		{"ok needs exit 0", func(l *Log) { l.Commands[0].ExitCode = nil }, "status ok needs exit_code 0"},
		{"failed with 0", func(l *Log) { l.Commands[0].Status = StatusFailed }, "status failed with exit_code 0"},
		{"unknown with a code", func(l *Log) { l.Commands[0].Status = StatusUnknown }, "status unknown needs exit_code null"},
		{"bad status", func(l *Log) { l.Commands[0].Status = "weird" }, `unknown status "weird"`},
		{"bad marker", func(l *Log) { l.Markers = []Marker{{Kind: "DONE"}} }, `unknown kind "DONE"`},
		{"negative cost", func(l *Log) { c := -1.0; l.CostUSD = &c }, "cost_usd is negative"},
		{"bad source", func(l *Log) { l.Commands[0].Source = &Source{File: "README.md"} }, "source needs"},
		{"stats", func(l *Log) { l.ParseStats = ParseStats{Lines: 1, Malformed: 2} }, "parse_stats"},
		{"environment kind", func(l *Log) { l.Commands[0].Environment = &Environment{Detail: "x"} }, "environment needs a kind"},
		{"environment", func(l *Log) { l.Commands[0].Environment = &Environment{Kind: "oom", Detail: "x"} }, ""},
		{"planned", func(l *Log) { l.Commands[0].Planned = PlannedProbe }, ""},
		{"background", func(l *Log) { l.Commands[0].Background = &Background{Ready: "true", TimeoutS: 60} }, ""},
		{"background timeout", func(l *Log) { l.Commands[0].Background = &Background{TimeoutS: -1} }, "commands[0] (a): background timeout_s is negative"},
		{"planned value", func(l *Log) { l.Commands[0].Planned = "guess" }, `commands[0] (a): planned "guess" is not step or probe`},
		{"nothing to run", func(l *Log) { l.Outcome, l.OutcomeCause, l.Commands = OutcomeFailed, CauseNothingToRun, nil }, ""},
		{"nothing to run, blocked by the sandbox", func(l *Log) { l.Outcome, l.OutcomeCause, l.Commands = OutcomeBlocked, CauseNothingToRun, nil }, ""},
		{"nothing to run with commands", func(l *Log) { l.Outcome, l.OutcomeCause = OutcomeFailed, CauseNothingToRun }, `outcome_cause "nothing-to-run" needs outcome failed or blocked and no commands`},
		{"nothing to run passed", func(l *Log) { l.OutcomeCause, l.Commands = CauseNothingToRun, nil }, `outcome_cause "nothing-to-run" needs outcome failed or blocked`},
		{"cause value", func(l *Log) { l.OutcomeCause = "limit" }, `outcome_cause "limit" is not nothing-to-run`},
		{"sandbox", func(l *Log) { l.Sandbox = &Sandbox{Profile: "strict", Disk: 1, Memory: 1, CPU: 1, Pids: 1} }, ""},
		{"sandbox profile", func(l *Log) { l.Sandbox = &Sandbox{Disk: 1} }, "sandbox needs a profile"},
		{"sandbox negative", func(l *Log) { l.Sandbox = &Sandbox{Profile: "dev", Memory: -1} }, "sandbox needs"},
		{"sandbox negative inodes", func(l *Log) { l.Sandbox = &Sandbox{Profile: "dev", Inodes: -1} }, "sandbox needs"},
		{"sandbox negative inodes peak", func(l *Log) { n := int64(-1); l.Sandbox = &Sandbox{Profile: "dev", InodesPeak: &n} }, "sandbox needs"},
		{"all at once", func(l *Log) { l.Engine = ""; l.Outcome = "" }, "engine is empty; outcome"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := valid()
			tt.mutate(l)
			err := Validate(l)
			if tt.want == "" {
				assert.NilError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
			assert.Assert(t, errors.Is(err, ErrInvalid))
		})
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	withSandbox := func() *Log {
		v := valid()
		peak := int64(123)
		v.Sandbox = &Sandbox{Profile: "dev", Disk: 10 << 30, Memory: 4 << 30, CPU: 2, Pids: 2048, DiskPeak: &peak, Inodes: 1310720, InodesPeak: &peak}
		v.Commands[0].Environment = &Environment{Kind: "stdin-eof", Detail: "asked a question"}
		v.Commands[0].Planned = PlannedStep
		return v
	}
	assert.NilError(t, Encode(&buf, withSandbox()))
	l, err := Decode(&buf)
	assert.NilError(t, err)
	assert.DeepEqual(t, l, func() *Log { v := withSandbox(); v.Normalize(); return v }())
	buf.Reset()
	assert.NilError(t, Encode(&buf, valid()))
	assert.Assert(t, !strings.Contains(buf.String(), "sandbox") && !strings.Contains(buf.String(), "environment") && !strings.Contains(buf.String(), "planned") &&
		!strings.Contains(buf.String(), "outcome_cause"),
		"a log without them must not grow the optional fields: %s", buf.String())
	_, err = Decode(strings.NewReader(`{"schema_version":1}`))
	assert.Assert(t, errors.Is(err, ErrInvalid))
	_, err = Decode(strings.NewReader(`not json`))
	assert.ErrorContains(t, err, "decode command log")
}

// Encode streams, but its bytes are those of json.MarshalIndent (without
// HTML escaping), so the file format is plain indented JSON.
func TestEncodeMatchesMarshalIndent(t *testing.T) {
	c, turns, d := 0.5, 3, int64(99)
	ver := "2.1.0"
	l := &Log{SchemaVersion: 1, Engine: "e", AgentVersion: &ver, Outcome: OutcomeBlocked, OutcomeReason: "no db", OutcomeCause: CauseNothingToRun,
		Markers: []Marker{{Kind: MarkerFix, Text: "a \"quoted\" <tag>"}, {Kind: MarkerBlocked, Text: "no db"}},
		Commands: []Command{{ID: "1", Command: "ls", Output: "x\ny", ExitCode: ip(0), Status: StatusOK, DurationMS: &d, Source: &Source{File: "README.md", Line: 3}}, {ID: "2", Command: "false", Status: StatusFailed, ParentID: "p",
			Environment: &Environment{Kind: "disk-full", Detail: "the disk cap <10 GiB> was reached: raise --disk"}, Planned: PlannedProbe},
			{ID: "3", Command: "git clone x && cd x", Status: StatusOK, ExitCode: ip(0), Ran: `cd -- "$README2DEMO_CHECKOUT"`, Cwd: "ex <a>", LeaveCwd: true, Setup: "pip install -e .",
				Background: &Background{Ready: "curl -fs localhost:8080", TimeoutS: 60}},
			{ID: "4", Command: "serve", Status: StatusOK, ExitCode: ip(0), Background: &Background{}, LeaveCwd: true},
			{ID: "5", Command: "serve", Status: StatusOK, ExitCode: ip(0), Background: &Background{TimeoutS: 5}},
			{ID: "6", Command: "serve", Status: StatusOK, ExitCode: ip(0), Background: &Background{Ready: "true"}}},
		FileEdits: []FileEdit{{Path: "README.md", Tool: "Edit", OK: true}},
		CostUSD:   &c, Turns: &turns, DurationMS: &d, ParseStats: ParseStats{Lines: 4, Malformed: 1, UnknownEvents: 2},
		Sandbox:      &Sandbox{Profile: "dev", Image: "img", Network: "open", Disk: 10 << 30, Memory: 4 << 30, CPU: 1.5, Pids: 2048, DiskPeak: &d, Inodes: 4096, InodesPeak: &d, Stopped: "disk", Reached: []string{"disk", "memory"}},
		RepoFindings: []RepoFinding{{Path: "CLAUDE.md", Action: "flag", Reason: "agent <instructions>"}, {Path: ".git/config", Action: "scrub", Reason: "credentials"}},
		Skipped:      []Skipped{{File: "README.md", Line: 9, Command: "sudo reboot", Reason: "restarts the machine"}}}
	var got bytes.Buffer
	assert.NilError(t, Encode(&got, l))
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	assert.NilError(t, enc.Encode(l))
	assert.Equal(t, got.String(), want.String())
}

// appendString must escape exactly as encoding/json does.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", "quote\" back\\slash", "\b\f\n\r\t\x00\x01\x1f\x7f", "<&>", "é😀", "\u2028\u2029",
		"bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate half"}
	rnd := uint32(7)
	for i := 0; i < 2000; i++ {
		var b []byte
		for j := 0; j < i%40; j++ {
			rnd = rnd*1664525 + 1013904223
			b = append(b, byte(rnd>>24))
		}
		cases = append(cases, string(b))
	}
	// Mostly text, with what needs escaping at every alignment of the
	// eight-byte copy, appended after other bytes.
	pieces := []string{"a", "seq 1 ", "12345", "\n", "\n", "\t", "\"", "\\", "\x01", "\x7f", "é", "😀", "\u2028", "\xff", "\xc3"}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for j := 0; j < i%60; j++ {
			rnd = rnd*1664525 + 1013904223
			b.WriteString(pieces[int(rnd>>24)%len(pieces)])
		}
		cases = append(cases, b.String())
	}
	for k, s := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		assert.NilError(t, enc.Encode(s))
		prefix := []byte("prefix: ")[:k%9]
		got := appendString(append(make([]byte, 0, k%9+k%13), prefix...), s)
		assert.Equal(t, string(got), string(prefix)+strings.TrimSuffix(want.String(), "\n"), "%q", s)
	}
}

// Invalid UTF-8 in agent output is made valid when written, so a log reads
// back and encodes again to the same bytes.
func TestEncodeRoundTripsInvalidUTF8(t *testing.T) {
	l := valid()
	l.Commands[0].Output = "Er\xff\xfe\xc3ror"
	l.Commands[0].Command = "echo \xed\xa0\x80"
	var first bytes.Buffer
	assert.NilError(t, Encode(&first, l))
	back, err := Decode(bytes.NewReader(first.Bytes()))
	assert.NilError(t, err)
	var second bytes.Buffer
	assert.NilError(t, Encode(&second, back))
	assert.Equal(t, second.String(), first.String())
	assert.Equal(t, back.Commands[0].Output, "Er\uFFFDror")
}

// The optional skipped list: absent when empty (a v1 log without it reads
// and writes the same bytes as before), present after parse_stats when set,
// encoded exactly as json.MarshalIndent would, and validated.
func TestSkippedIsOptionalAndValidated(t *testing.T) {
	l := valid()
	var plain bytes.Buffer
	assert.NilError(t, Encode(&plain, l))
	assert.Assert(t, !strings.Contains(plain.String(), "skipped"), plain.String())

	l.Skipped = []Skipped{
		{File: "README.md", Line: 12, Command: "brew install glow", Reason: "other platform: Homebrew"},
		{File: "README.md", Line: 40, Command: "glow -s [dark|light]", Reason: "usage synopsis ([dark|light]), not a command to run"},
	}
	var got bytes.Buffer
	assert.NilError(t, Encode(&got, l))
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	assert.NilError(t, enc.Encode(l))
	assert.Equal(t, got.String(), want.String())
	assert.Assert(t, strings.HasSuffix(got.String(), "\"reason\": \"usage synopsis ([dark|light]), not a command to run\"\n    }\n  ]\n}\n"), got.String())

	back, err := Decode(bytes.NewReader(got.Bytes()))
	assert.NilError(t, err)
	assert.DeepEqual(t, back.Skipped, l.Skipped)

	l.Skipped = append(l.Skipped, Skipped{File: "README.md", Line: 0, Command: "x"})
	assert.ErrorContains(t, Validate(l), "skipped[2]: needs a file, a line >= 1 and a reason")
}
