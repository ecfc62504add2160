package engines

import (
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/envcause"
)

// envSummary is cmdSummary with each command's environment kind.
func envSummary(l *commandlog.Log) []string {
	out := cmdSummary(l)
	for i, c := range l.Commands {
		if c.Environment != nil {
			out[i] += " " + c.Environment.Kind
		}
	}
	return out
}

// A pipeline fails when one of its programs does, as with set -o
// pipefail: a first program that was not found is not hidden by the last
// one's 0; a writer that the reader stopped (SIGPIPE) is not a failure.
func TestPipelineStatusCoversEveryProgram(t *testing.T) {
	t.Parallel()
	md := "<!-- readme2demo: continue-on-error -->\n```sh\nyes | head -n 1\nr2d-nosuch-tool --list | sort\nfalse | true; echo after\n```\n\n" +
		"```sh\nr2d-nosuch-tool | cat\necho never\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, cmdSummary(l), []string{
		"3 yes | head -n 1 => 0 ok",
		"4 r2d-nosuch-tool --list | sort => 127 failed",
		"5 false | true; echo after => 0 ok",
		"9 r2d-nosuch-tool | cat => 127 failed",
	})
	assert.Equal(t, l.OutcomeReason, "README.md line 9: `r2d-nosuch-tool | cat` exited with 127 (r2d-nosuch-tool: command not found); "+
		"the exit statuses of its pipeline were 127 0 (a pipeline fails when one of its programs does); 1 of 5 planned commands was not reached; "+
		"the markdown engine runs only what the README's code blocks say; if the README gives this prerequisite in words, try an AI engine such as --engine claude-code")
	// The log keeps each pipeline's statuses (pipe_status), for what reads
	// it later (a quiet download's failure inside a pipeline).
	for i, want := range [][]int{{141, 0}, {127, 0}, nil, {127, 0}} {
		assert.DeepEqual(t, l.Commands[i].PipeStatus, want)
	}
}

// A command that waited on standard input and got end of file is the
// sandbox's (no terminal), not the README's: stdin-eof, whether or not it
// printed a question. A command that failed without reading its input is
// not.
func TestStdinEOFIsNamed(t *testing.T) {
	t.Parallel()
	md := "<!-- readme2demo: continue-on-error -->\n```sh\nread -r name\nread -r -p 'Name? ' name\nselect x in a b; do break; done\n" +
		"printf 'Overwrite? [y/N] ' && read -r answer && [ \"$answer\" = y ]\nfalse\ncat < /dev/stdin\n```\n"
	l, _ := runLocal(t, MarkdownName, readmePlan(md), nil)
	assert.DeepEqual(t, envSummary(l), []string{
		"3 read -r name => 1 failed stdin-eof",
		"4 read -r -p 'Name? ' name => 1 failed stdin-eof",
		"5 select x in a b; do break; done => 1 failed stdin-eof",
		"6 printf 'Overwrite? [y/N] ' && read -r answer && [ \"$answer\" = y ] => 1 failed stdin-eof",
		"7 false => 1 failed",
		"8 cat < /dev/stdin => 0 ok",
	})
	assert.Equal(t, l.Commands[0].Environment.Detail, envcause.EndOfInput().Detail)
	assert.Equal(t, l.Outcome, commandlog.OutcomeSuccess, l.OutcomeReason)
}
