package readme

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func TestShellScannerComplete(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		complete bool
	}{
		{"simple", "make test", true},
		{"backslash", "docker run \\", false},
		{"backslash done", "docker run \\\n  alpine", true},
		{"open double quote", `echo "abc`, false},
		{"closed double quote", "echo \"abc\ndef\"", true},
		{"open single quote", "echo 'it", false},
		{"escaped quote", `echo \"hi`, true},
		{"heredoc pending", "cat <<EOF", false},
		{"heredoc body", "cat <<EOF\nhello", false},
		{"heredoc closed", "cat <<EOF\nhello\nEOF", true},
		{"heredoc quoted delim", "cat <<'END' > f\n$x\nEND", true},
		{"heredoc dash tabs", "cat <<-END\n\tx\n\tEND", true},
		{"here-string is not a heredoc", "cat <<< hi", true},
		{"if open", "if true; then", false},
		{"if closed", "if true; then\n echo\nfi", true},
		{"one-line for", "for i in 1 2; do echo $i; done", true},
		{"while open", "while read l; do", false},
		{"case", "case $x in\n a) echo;;\nesac", true},
		{"function braces", "f() {\n echo\n}", true},
		{"function open", "f() {", false},
		{"braces in find are a word", `find . -exec rm {} \;`, true},
		{"param expansion", "echo ${HOME}", true},
		{"subshell open", "(cd x &&", false},
		{"command substitution open", "echo $(date", false},
		{"trailing and", "make &&", false},
		{"trailing pipe", "ls |", false},
		{"trailing pipe done", "ls |\n wc -l", true},
		{"and over a blank line", "curl -LO x.tar.gz &&\n", false},
		{"and over a comment", "curl -LO x.tar.gz &&\n\n# check it\nsha256sum x.tar.gz", true},
		{"and over a comment, still open", "curl -LO x.tar.gz &&\n# check it", false},
		{"blank line ends a complete command", "make\n", true},
		{"comment", "echo hi # if then (", true},
		{"word with if inside", "echo if fi done", true},
		{"background", "server &", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s Scanner
			for _, l := range strings.Split(tc.text, "\n") {
				s.Feed(l)
			}
			assert.Equal(t, s.Complete(), tc.complete)
		})
	}
}

func TestHintWords(t *testing.T) {
	assert.DeepEqual(t, hintWords(` background ready="curl -sf localhost:8080" timeout=5s, skip `),
		[]string{"background", "ready=curl -sf localhost:8080", "timeout=5s", "skip"})
	assert.DeepEqual(t, hintWords(`ready='a "b"'`), []string{`ready=a "b"`})
}

// Every kind of prompt promptRe's comment names is cut, and so is a `#`
// root prompt; lines that only look like one are not.
func TestCutPrompt(t *testing.T) {
	tests := []struct {
		cut       func(string) (string, bool)
		line, cmd string
		ok        bool
	}{
		{CutPrompt, "$ make", "make", true},
		{CutPrompt, "  $ make", "make", true},
		{CutPrompt, "% make", "make", true},
		{CutPrompt, "❯ make", "make", true},
		{CutPrompt, "▶ make", "make", true},
		{CutPrompt, "› make", "make", true},
		{CutPrompt, "(venv) $ pip install x", "pip install x", true},
		{CutPrompt, "user@host:~/dir$ make", "make", true},
		{CutPrompt, "➜  ~/dir(main) make", "make", true},
		{CutPrompt, "➜ make", "make", true},
		{CutPrompt, "$", "", true},
		{CutPrompt, "  % Total    % Received", "", false},
		{CutPrompt, "echo $HOME", "", false},
		{CutPrompt, "make", "", false},
		{CutPrompt, "", "", false},
		{cutRootPrompt, "# apt-get install x", "apt-get install x", true},
		{cutRootPrompt, "root@host:~# make", "make", true},
		{cutRootPrompt, "#!/bin/sh", "", false},
		{cutRootPrompt, "make", "", false},
		{cutRootPrompt, "# Alpine Linux", "", false},
		{cutRootPrompt, "# a comment, will be ignored", "", false},
		{cutRootPrompt, "# echo 'one, two' > list", "echo 'one, two' > list", true},
	}
	for _, tc := range tests {
		cmd, ok := tc.cut(tc.line)
		assert.Equal(t, ok, tc.ok, "%q", tc.line)
		assert.Equal(t, cmd, tc.cmd, "%q", tc.line)
	}
}
