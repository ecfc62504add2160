package transcriptgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/readme2demo/readme2demo/engines"
)

// Shape is a kind of long transcript for benchmarks and memory tests: an
// engine and real transcripts of it, repeated with fresh ids to any size.
type Shape struct {
	Name   string
	Engine string
	// Fixtures are paths from the repository root, concatenated in order.
	Fixtures []string
	About    string
	// Runs says the transcript holds one run per line (evaluation output):
	// `readme2demo parse` writes one log per run, into a directory.
	Runs bool
}

// Shapes are the benchmark shapes (docs/benchmarks.md).
var Shapes = []Shape{
	{
		Name: "claude-session", Engine: engines.ClaudeCodeName,
		Fixtures: []string{
			"testdata/fixtures/claude-code/real-2.1.332-success.jsonl",
			"testdata/fixtures/claude-code/real-2.1.332-failures.jsonl",
		},
		About: "real Claude Code 2.1.332 sessions of small commands (a README walk, failures with several exit codes): many small records",
	},
	{
		Name: "claude-bigoutput", Engine: engines.ClaudeCodeName,
		Fixtures: []string{
			"testdata/fixtures/claude-code/real-2.1.332-success.jsonl",
			"testdata/fixtures/claude-code/real-2.1.332-failures.jsonl",
			"testdata/fixtures/claude-code/real-2.1.332-bigoutput.jsonl",
		},
		About: "the same with a session printing 1.2 MB of output (scripts/gentranscript's first shape)",
	},
	{
		Name: "claude-sessionfile", Engine: engines.ClaudeCodeName,
		Fixtures: []string{
			"testdata/bench/claude-code/spotter-session-2.1.39.jsonl",
		},
		About: "a real Claude Code 2.1.39 session file (~/.claude/projects: 120 Bash, 67 Edit, 37 Read, 6 Write, a Task sub-agent, thinking, 1,697 progress records)",
	},
	{
		Name: "codex", Engine: engines.CodexName,
		Fixtures: []string{
			"testdata/fixtures/codex/real-0.171.0-success.jsonl",
			"testdata/fixtures/codex/real-0.171.0-failures.jsonl",
			"testdata/fixtures/codex/real-0.171.0-edit.jsonl",
			"testdata/fixtures/codex/real-0.171.0-codemode-success.jsonl",
			"testdata/fixtures/codex/real-0.171.0-killed.jsonl",
		},
		About: "real Codex 0.171.0 `exec --json` runs: small item events",
	},
	{
		Name: "gemini", Engine: engines.GeminiName,
		Fixtures: []string{
			"testdata/fixtures/gemini/real-0.61.0-success.jsonl",
			"testdata/fixtures/gemini/real-0.61.0-failures.jsonl",
			"testdata/fixtures/gemini/real-0.61.0-edit.jsonl",
			"testdata/fixtures/gemini/real-0.61.0-signals.jsonl",
			"testdata/fixtures/gemini/real-0.61.0-bigoutput.jsonl",
		},
		About: "real Gemini CLI 0.61.0 stream-json runs, streamed text deltas, a 130 KB output",
	},
	{
		Name: "openhands", Engine: engines.OpenHandsName,
		Fixtures: []string{
			"testdata/bench/openhands/session-events-dir-2025-07-ipython.assembled.jsonl",
			"testdata/bench/openhands/v1-sdk-events-2026-06-terminal.jsonl",
			"testdata/fixtures/openhands/v0-adjusted-success.jsonl",
			"testdata/fixtures/openhands/v1-blocked.jsonl",
		},
		About: "OpenHands V0 and V1 event streams, one event a line, with real metadata (model responses, tool definitions)",
	},
	{
		Name: "openhands-eval", Engine: engines.OpenHandsName,
		Fixtures: []string{
			"testdata/bench/openhands/multi-swe-bench-output-2025-04.history.jsonl",
		},
		About: "OpenHands evaluation output: one instance, its whole history, per line (about 230 KB records)",
		Runs:  true,
	},
}

// ShapeNamed returns the shape called name.
func ShapeNamed(name string) (Shape, error) {
	for _, s := range Shapes {
		if s.Name == name {
			return s, nil
		}
	}
	var names []string
	for _, s := range Shapes {
		names = append(names, s.Name)
	}
	return Shape{}, fmt.Errorf("unknown transcript shape %q (known: %v)", name, names)
}

// Fixture reads and concatenates the shape's transcripts, from the
// repository at root.
func (s Shape) Fixture(root string) ([]byte, error) {
	var b bytes.Buffer
	for _, f := range s.Fixtures {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("read fixture of shape %s: %w", s.Name, err)
		}
		b.Write(bytes.TrimRight(data, "\n"))
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}
