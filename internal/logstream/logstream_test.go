package logstream_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/readme2demo/readme2demo/internal/longtest"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/logstream"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/transcriptgen"
)

// secret is a forwarded secret value the tests plant in transcripts.
const secret = "s3cr3t-Value-0123456789abcdef"

func redactor() *redact.Redactor { return redact.New([]string{secret}) }

// inMemory is the log parsed whole: ParseTranscript, redact.Log, Encode.
func inMemory(t testing.TB, eng engines.AgentEngine, data []byte) string {
	t.Helper()
	l, err := eng.ParseTranscript(bytes.NewReader(data))
	assert.NilError(t, err)
	redact.Log(l, redactor())
	var b bytes.Buffer
	assert.NilError(t, commandlog.Encode(&b, l))
	return b.String()
}

// streamed is the log as `readme2demo parse` writes it: engines.Stream
// into a Writer, Finish, WriteTo.
func streamed(t testing.TB, eng engines.AgentEngine, data []byte) (string, *logstream.Writer) {
	t.Helper()
	red := redactor()
	w, err := logstream.New(logstream.Options{Dir: t.TempDir(), Redact: red.String})
	assert.NilError(t, err)
	t.Cleanup(func() { assert.NilError(t, w.Close()) })
	head, err := engines.Stream(eng, bytes.NewReader(data), w)
	assert.NilError(t, err)
	assert.NilError(t, w.Finish(head))
	var b bytes.Buffer
	n, err := w.WriteTo(&b)
	assert.NilError(t, err)
	assert.Equal(t, n, int64(b.Len()))
	return b.String(), w
}

func fixtures(t *testing.T, dirs ...string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, name := range engines.Names() {
		for _, dir := range dirs {
			entries, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			for _, e := range entries {
				if e.IsDir() || strings.HasSuffix(e.Name(), ".md") || strings.HasSuffix(e.Name(), ".stderr") {
					continue
				}
				out[name] = append(out[name], filepath.Join(dir, name, e.Name()))
			}
		}
	}
	return out
}

// The streamed log has exactly the bytes of the log parsed whole, for every
// transcript of every engine (fixtures and the corpus).
func TestStreamedEqualsInMemoryOnFixtures(t *testing.T) {
	longtest.Require(t) // parses every fixture twice, seconds of CPU
	n := 0
	for name, files := range fixtures(t, "../../testdata/fixtures", "../../testdata/corpus") {
		eng, err := engines.Lookup(name)
		assert.NilError(t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			assert.NilError(t, err)
			got, _ := streamed(t, eng, data)
			assert.Equal(t, got, inMemory(t, eng, data), f)
			n++
		}
	}
	assert.Assert(t, n > 40, "only %d transcripts", n)
}

// everyField is a log with every field of the schema set, the optional
// ones included (sandbox, repo_findings, skipped, a command's environment,
// source, parent and duration), a secret in each kind of string and
// invalid UTF-8 in some.
func everyField() *commandlog.Log {
	zero, two, turns := 0, 2, 7
	cost, d, peak := 0.25, int64(1234), int64(3<<30)
	ver := "1.2.3 " + secret
	return &commandlog.Log{SchemaVersion: 1, Engine: "claude-code", AgentVersion: &ver,
		Outcome: commandlog.OutcomeFailed, OutcomeReason: "README.md line 3: make failed \xff " + secret,
		Markers: []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: "set TOKEN=" + secret}, {Kind: commandlog.MarkerBlocked, Text: "no <db>"}},
		Commands: []commandlog.Command{
			{ID: "1", Command: "echo " + secret, Output: "ok \xc3\n" + secret, ExitCode: &zero, Status: commandlog.StatusOK,
				ParentID: "task-1", DurationMS: &d, Source: &commandlog.Source{File: "README.md", Line: 3}},
			{ID: "2", Command: "dd if=/dev/zero of=big", Output: "No space left on device", ExitCode: &two, Status: commandlog.StatusFailed, Truncated: true,
				Environment: &commandlog.Environment{Kind: "disk", Detail: "the disk cap (10 GiB) was reached " + secret}},
			{ID: "3", Command: "sleep 9", Status: commandlog.StatusUnknown},
		},
		FileEdits: []commandlog.FileEdit{{Path: "/w/" + secret, Tool: "Write", OK: true}, {Path: "x", Tool: "Edit"}},
		CostUSD:   &cost, Turns: &turns, DurationMS: &d,
		Sandbox: &commandlog.Sandbox{Profile: "strict", Image: "img:" + secret, Network: "allowlist", Disk: 10 << 30, Memory: 4 << 30,
			CPU: 1.5, Pids: 1024, DiskPeak: &peak, Stopped: "disk", Reached: []string{"disk", "memory"}},
		RepoFindings: []commandlog.RepoFinding{{Path: "CLAUDE.md", Action: "flag", Reason: "agent instructions " + secret}, {Path: ".git/config", Action: "scrub", Reason: "credential helper"}},
		ParseStats:   commandlog.ParseStats{Lines: 40, Malformed: 1, UnknownEvents: 2},
		Skipped:      []commandlog.Skipped{{File: "README.md", Line: 9, Command: "export KEY=" + secret, Reason: "sets a secret"}},
	}
}

// A log with every field set, its items fed to a Writer one at a time and
// the rest given to Finish, is written with exactly the bytes redact.Log
// and commandlog.Encode give for the whole log: the optional fields
// (sandbox, repo_findings, skipped, environment) are written, and
// redacted, as the non-streaming encoder writes them.
func TestStreamedEqualsEncodeWithEveryField(t *testing.T) {
	whole := everyField()
	redact.Log(whole, redactor())
	var want bytes.Buffer
	assert.NilError(t, commandlog.Encode(&want, whole))
	for _, field := range []string{`"sandbox"`, `"repo_findings"`, `"skipped"`, `"environment"`, `"parent_id"`, `"source"`, `"outcome_reason"`, `"disk_peak"`} {
		assert.Assert(t, strings.Contains(want.String(), field), "the fixture lost %s", field)
	}
	assert.Assert(t, !strings.Contains(want.String(), secret))

	l := everyField()
	w, err := logstream.New(logstream.Options{Dir: t.TempDir(), Redact: redactor().String})
	assert.NilError(t, err)
	defer w.Close()
	for i := range l.Markers {
		assert.NilError(t, w.Marker(&l.Markers[i]))
	}
	for i := range l.Commands {
		assert.NilError(t, w.Command(&l.Commands[i]))
	}
	for i := range l.FileEdits {
		assert.NilError(t, w.FileEdit(&l.FileEdits[i]))
	}
	assert.NilError(t, w.Finish(l))
	var got bytes.Buffer
	_, err = w.WriteTo(&got)
	assert.NilError(t, err)
	assert.Equal(t, got.String(), want.String())
}

// planted is a fixture with a secret in a command, its output and a marker.
func planted(eng string) []byte {
	switch eng {
	case engines.ClaudeCodeName:
		return []byte(`{"type":"assistant","message":{"id":"msg_s","content":[{"type":"text","text":"FIX: used ` + secret + `"},{"type":"tool_use","id":"toolu_s","name":"Bash","input":{"command":"echo ` + secret + `"}},{"type":"tool_use","id":"toolu_e","name":"Write","input":{"file_path":"/w/` + secret + `"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_s","content":"` + secret + `"}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_e","content":"ok"}]}}
`)
	case "codex":
		return []byte(`{"type":"item.completed","item":{"id":"item_s","type":"command_execution","command":"echo ` + secret + `","aggregated_output":"` + secret + `","exit_code":0,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_t","type":"agent_message","text":"FIX: ` + secret + `"}}
`)
	}
	return nil
}

// Redaction reaches every item of a streamed log.
func TestStreamedRedactsEveryItem(t *testing.T) {
	for _, name := range []string{engines.ClaudeCodeName, "codex"} {
		eng, err := engines.Lookup(name)
		assert.NilError(t, err)
		var data bytes.Buffer
		_, err = transcriptgen.New(planted(name)).WriteSize(&data, 256<<10)
		assert.NilError(t, err)
		got, w := streamed(t, eng, data.Bytes())
		assert.Assert(t, !strings.Contains(got, secret), "%s: the secret leaked", name)
		assert.Assert(t, strings.Contains(got, redact.Marker(redact.SecretRule)))
		_, cmds, _ := w.Counts()
		assert.Assert(t, cmds > 100)
		assert.Equal(t, got, inMemory(t, eng, data.Bytes()), name)
	}
}

// largest returns an engine's largest JSONL fixture.
func largest(t testing.TB, name string) []byte {
	files, _ := filepath.Glob(filepath.Join("../../testdata/fixtures", name, "*.jsonl"))
	sort.Strings(files)
	var best []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		if len(data) > len(best) {
			best = data
		}
	}
	assert.Assert(t, best != nil, "no JSONL fixture for %s", name)
	return best
}

// densest returns the engine's JSONL fixture with the most commands per
// byte, and its number of commands.
func densest(t testing.TB, eng engines.AgentEngine) ([]byte, int) {
	files, _ := filepath.Glob(filepath.Join("../../testdata/fixtures", eng.Name(), "*.jsonl"))
	sort.Strings(files)
	var best []byte
	n, density := 0, 0.0
	for _, f := range files {
		data, err := os.ReadFile(f)
		assert.NilError(t, err)
		l, err := eng.ParseTranscript(bytes.NewReader(data))
		assert.NilError(t, err)
		if d := float64(len(l.Commands)) / float64(len(data)); d > density {
			best, n, density = data, len(l.Commands), d
		}
	}
	assert.Assert(t, best != nil, "no JSONL fixture with commands for %s", eng.Name())
	return best, n
}

// Long transcripts — an engine's densest fixture repeated with fresh ids,
// to at least 6,000 commands, past the builder's bounds (openSlots), so that
// commands are sealed while the parse goes on — give the same bytes
// streamed as parsed whole. R2D_LARGE=1 makes them 64 MiB each (100,000 to
// 500,000 commands).
func TestStreamedEqualsInMemoryOnLongTranscripts(t *testing.T) {
	longtest.Require(t) // parses every fixture twice, seconds of CPU
	for _, name := range engines.Names() {
		t.Run(name, func(t *testing.T) {
			eng, err := engines.Lookup(name)
			assert.NilError(t, err)
			fixture, per := densest(t, eng)
			copies := 6000/per + 1
			if os.Getenv("R2D_LARGE") == "1" {
				copies = (64<<20)/len(fixture) + 1
			}
			var data bytes.Buffer
			g := transcriptgen.New(fixture)
			for i := 0; i < copies; i++ {
				_, err := g.WriteCopy(&data)
				assert.NilError(t, err)
			}
			got, w := streamed(t, eng, data.Bytes())
			want := inMemory(t, eng, data.Bytes())
			assert.Assert(t, got == want, "%s: streamed and in-memory logs differ (%d vs %d bytes)", name, len(got), len(want))
			_, cmds, _ := w.Counts()
			assert.Assert(t, cmds >= copies*per, "%d commands from %d copies of %d", cmds, copies, per)
			// Every copy's commands, in order, as one copy parses them.
			one, err := eng.ParseTranscript(bytes.NewReader(fixture))
			assert.NilError(t, err)
			l, err := commandlog.Decode(strings.NewReader(got))
			assert.NilError(t, err)
			if !strings.HasPrefix(one.Commands[0].ID, "call-") { // calls with ids pair within their copy
				assert.Equal(t, len(l.Commands), copies*per)
				for i, c := range l.Commands {
					want := one.Commands[i%per]
					assert.Equal(t, c.Command, want.Command, "command %d", i)
					assert.Equal(t, c.Status, want.Status, "command %d", i)
				}
			}
			t.Logf("%s: %d KiB, %d commands, %d bytes of log", name, data.Len()>>10, cmds, len(got))
		})
	}
}

// failing is a writer (and file system) that fails.
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrorsAreReported(t *testing.T) {
	eng, _ := engines.Lookup(engines.ClaudeCodeName)
	data := largest(t, engines.ClaudeCodeName)
	_, w := streamed(t, eng, data)
	_, err := w.WriteTo(failing{})
	assert.ErrorContains(t, err, "disk full")
	assert.ErrorContains(t, err, "write command log")
}

// WriteFile replaces the file only with a whole log, and Close leaves no
// spill file behind.
func TestWriteFileAndClose(t *testing.T) {
	dir := t.TempDir()
	spill := filepath.Join(dir, "spill")
	assert.NilError(t, os.Mkdir(spill, 0o755))
	eng, _ := engines.Lookup(engines.ClaudeCodeName)
	data := largest(t, engines.ClaudeCodeName)
	w, err := logstream.New(logstream.Options{Dir: spill})
	assert.NilError(t, err)
	head, err := engines.Stream(eng, bytes.NewReader(data), w)
	assert.NilError(t, err)
	out := filepath.Join(dir, "command_log.json")
	assert.NilError(t, os.WriteFile(out, []byte("old"), 0o600))
	_, err = w.WriteTo(io.Discard)
	assert.ErrorContains(t, err, "Finish")
	assert.NilError(t, w.Finish(head))
	assert.NilError(t, w.WriteFile(out))
	got, err := os.ReadFile(out)
	assert.NilError(t, err)
	l, err := commandlog.Decode(bytes.NewReader(got))
	assert.NilError(t, err)
	assert.Assert(t, len(l.Commands) > 0)
	st, err := os.Stat(out)
	assert.NilError(t, err)
	assert.Equal(t, st.Mode().Perm(), os.FileMode(0o644))
	assert.NilError(t, w.Close())
	assert.NilError(t, w.Close())
	left, err := os.ReadDir(spill)
	assert.NilError(t, err)
	assert.Equal(t, len(left), 0, "spill files left: %v", left)
	others, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	assert.Equal(t, len(others), 0)
}

// Validation problems of streamed items are reported by Finish, as
// commandlog.Validate reports them for a whole log.
func TestFinishValidates(t *testing.T) {
	w, err := logstream.New(logstream.Options{Dir: t.TempDir()})
	assert.NilError(t, err)
	defer w.Close()
	zero := 0
	assert.NilError(t, w.Command(&commandlog.Command{ID: "a", Status: commandlog.StatusOK, ExitCode: &zero}))
	assert.NilError(t, w.Command(&commandlog.Command{ID: "b", Status: commandlog.StatusFailed, ExitCode: &zero}))
	assert.NilError(t, w.FileEdit(&commandlog.FileEdit{}))
	err = w.Finish(&commandlog.Log{SchemaVersion: 1, Engine: "e", Outcome: commandlog.OutcomeFailed})
	assert.Assert(t, errors.Is(err, commandlog.ErrInvalid))
	assert.ErrorContains(t, err, "commands[1] (b): status failed with exit_code 0; file_edits[0]: path is empty")
}

// WriteFile writes to a device or a pipe in place: it never replaces one
// with a file.
func TestWriteFileToADevice(t *testing.T) {
	eng, _ := engines.Lookup(engines.ClaudeCodeName)
	_, w := streamed(t, eng, largest(t, engines.ClaudeCodeName))
	assert.NilError(t, w.WriteFile(os.DevNull))
	st, err := os.Stat(os.DevNull)
	assert.NilError(t, err)
	assert.Assert(t, st.Mode()&os.ModeDevice != 0, "%s is still a device", os.DevNull)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(os.DevNull), ".null.*.tmp"))
	assert.Equal(t, len(left), 0)
}
