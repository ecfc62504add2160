// Package demo turns a command log into the demo readme2demo's name
// promises: demo.cast, an asciicast v2 recording (play it with
// `asciinema play demo.cast` or embed it with asciinema-player), and
// demo.sh, a script of the run's successful path.
//
// It reads only command_log.json (never an engine) and writes nothing but
// what its caller asks for. Secrets stay redacted: every entry point works on
// a redacted copy of the log (known token shapes plus the secret values the
// caller passes), whatever the caller did before.
//
// Pacing of the cast: each command is typed at a steady rate (at most
// MaxTyping per command), its output appears spread over the command's
// recorded duration when the log has one, capped at MaxPause so that a
// five-minute install does not make a five-minute demo, and over a fixed
// short time otherwise. Times never decrease. The header carries no
// timestamp unless one is given, so the same log gives the same file.
package demo

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/shell"
	"github.com/readme2demo/readme2demo/internal/termtext"
)

// Pacing constants.
const (
	StartDelay    = 500 * time.Millisecond  // before the first prompt
	CharDelay     = 35 * time.Millisecond   // per typed character
	MaxTyping     = 2 * time.Second         // typing time cap per command
	EnterDelay    = 300 * time.Millisecond  // after typing, before Enter
	DefaultOutput = 400 * time.Millisecond  // output time when the duration is unknown
	MaxPause      = 3 * time.Second         // output time cap per command
	BetweenDelay  = 800 * time.Millisecond  // after a command's output
	EndDelay      = 1500 * time.Millisecond // after the last command
)

// Default terminal size.
const (
	DefaultWidth  = 100
	DefaultHeight = 30
)

// Options shape the demo files.
type Options struct {
	Title  string // cast title; "" gives "readme2demo: <engine> (<outcome>)"
	Width  int    // terminal columns; 0 gives DefaultWidth
	Height int    // terminal rows; 0 gives DefaultHeight
	// Timestamp, when set, is written to the cast header.
	Timestamp time.Time
	// Source names the log in demo.sh's header, e.g. "command_log.json".
	Source string
	// Secrets are values to redact besides the known token shapes (the
	// credentials of the run).
	Secrets []string
}

// File names written by WriteFiles.
const (
	CastFile   = "demo.cast"
	ScriptFile = "demo.sh"
)

// WriteFiles writes demo.cast and demo.sh (executable) into dir, creating
// it, and returns their paths.
func WriteFiles(dir string, l *commandlog.Log, o Options) (castPath, scriptPath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", fmt.Errorf("create demo directory: %w", err)
	}
	var cast, script bytes.Buffer
	if err := Cast(&cast, l, o); err != nil {
		return "", "", err
	}
	if err := Script(&script, l, o); err != nil {
		return "", "", err
	}
	castPath, scriptPath = filepath.Join(dir, CastFile), filepath.Join(dir, ScriptFile)
	if err := os.WriteFile(castPath, cast.Bytes(), 0o644); err != nil {
		return "", "", fmt.Errorf("write %s: %w", CastFile, err)
	}
	if err := os.WriteFile(scriptPath, script.Bytes(), 0o755); err != nil {
		return "", "", fmt.Errorf("write %s: %w", ScriptFile, err)
	}
	return castPath, scriptPath, nil
}

// Header is the first line of an asciicast v2 file.
type Header struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// Terminal styling of the cast.
const (
	prompt     = "\x1b[1;32m$\x1b[0m "
	contPrompt = "\x1b[1;32m>\x1b[0m "
	red        = "\x1b[31m"
	dim        = "\x1b[2m"
	reset      = "\x1b[0m"
)

// castWriter emits events at non-decreasing times.
type castWriter struct {
	buf bytes.Buffer
	t   time.Duration
}

func (c *castWriter) at(t time.Duration, data string) {
	t = max(t, c.t)
	c.t = t
	if data == "" {
		return
	}
	enc := json.NewEncoder(&c.buf) // Encode ends the line
	enc.SetEscapeHTML(false)
	_ = enc.Encode([]any{json.Number(fmt.Sprintf("%.6f", t.Seconds())), "o", data}) // strings and numbers always encode
}

// Cast writes the asciicast v2 recording of l.
func Cast(w io.Writer, l *commandlog.Log, o Options) error {
	if l == nil {
		return fmt.Errorf("write cast: no command log")
	}
	l = redact.Copy(l, redact.New(o.Secrets)) // a copy: l itself is left alone
	h := Header{Version: 2, Width: o.Width, Height: o.Height, Title: o.Title,
		Env: map[string]string{"SHELL": "/bin/bash", "TERM": "xterm-256color"}}
	if h.Width <= 0 {
		h.Width = DefaultWidth
	}
	if h.Height <= 0 {
		h.Height = DefaultHeight
	}
	if h.Title == "" {
		h.Title = fmt.Sprintf("readme2demo: %s (%s)", l.Engine, l.Outcome)
	}
	h.Title = termtext.Visible(oneLine(h.Title))
	if !o.Timestamp.IsZero() {
		h.Timestamp = o.Timestamp.Unix()
	}
	head, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode cast header: %w", err)
	}
	cw := &castWriter{}
	cw.buf.Write(head)
	cw.buf.WriteByte('\n')
	t := StartDelay
	for _, c := range l.Commands {
		t = castCommand(cw, t, c)
	}
	cw.at(t, prompt)
	t += EndDelay / 2
	cw.at(t, dim+"# readme2demo: "+termtext.Visible(outcomeLine(l))+reset+"\r\n")
	cw.at(t+EndDelay/2, "")
	if _, err := w.Write(cw.buf.Bytes()); err != nil {
		return fmt.Errorf("write cast: %w", err)
	}
	return nil
}

func outcomeLine(l *commandlog.Log) string {
	s := string(l.Outcome)
	if l.Adjusted {
		s += " (adjusted)"
	}
	if l.OutcomeReason != "" && l.Outcome != commandlog.OutcomeSuccess {
		// The first clause names the failing step; the rest is advice.
		first, _, _ := strings.Cut(l.OutcomeReason, "\n")
		r, _, _ := strings.Cut(first, "; ")
		s += ": " + r
	}
	return s
}

// castCommand emits one command from time t and returns the time after it.
func castCommand(cw *castWriter, t time.Duration, c commandlog.Command) time.Duration {
	cw.at(t, prompt)
	// The command is shown as typed, every control character drawn
	// visibly: a README line cannot set the title, write the clipboard or
	// clear the screen of whoever plays the demo.
	text := termtext.Visible(c.Command)
	typing := min(time.Duration(len(text))*CharDelay, MaxTyping)
	chunks := typeChunks(text)
	step := time.Duration(0)
	if len(chunks) > 0 {
		step = typing / time.Duration(len(chunks))
	}
	for _, ch := range chunks {
		t += step
		cw.at(t, strings.ReplaceAll(ch, "\n", "\r\n"+contPrompt))
	}
	t += EnterDelay
	cw.at(t, "\r\n")

	out := terminalText(c.Output)
	pause := DefaultOutput
	if c.DurationMS != nil {
		pause = min(time.Duration(*c.DurationMS)*time.Millisecond, MaxPause)
	}
	lines := splitKeep(out)
	if len(lines) > 0 {
		// At most 40 output events per command, spread over the pause.
		groups := groupLines(lines, 40)
		each := pause / time.Duration(len(groups))
		for _, g := range groups {
			t += each
			cw.at(t, g)
		}
	} else {
		t += pause
	}
	switch {
	case c.Status == commandlog.StatusUnknown:
		cw.at(t, red+"[readme2demo: no result: the command did not finish]"+reset+"\r\n")
	case c.ExitCode != nil && *c.ExitCode != 0:
		cw.at(t, fmt.Sprintf("%s[exit %d]%s\r\n", red, *c.ExitCode, reset))
	case c.Status == commandlog.StatusFailed:
		cw.at(t, red+"[failed]"+reset+"\r\n")
	}
	return t + BetweenDelay
}

// typeChunks cuts a command into pieces typed one event each: words with
// their following space, so the cast stays small.
func typeChunks(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// terminalText prepares output for a terminal: only text, tabs and
// colours survive (termtext.Output), CR LF line ends, a final line end.
func terminalText(s string) string {
	if s == "" {
		return ""
	}
	s = termtext.Output(s)
	if s == "" {
		return ""
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return strings.ReplaceAll(s, "\n", "\r\n")
}

func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	parts := strings.SplitAfter(s, "\r\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

func groupLines(lines []string, max int) []string {
	if len(lines) <= max {
		return lines
	}
	per := (len(lines) + max - 1) / max
	var out []string
	for i := 0; i < len(lines); i += per {
		out = append(out, strings.Join(lines[i:min(i+per, len(lines))], ""))
	}
	if last := out[len(out)-1]; !strings.HasSuffix(last, "\r\n") {
		out[len(out)-1] = last + "\r\n"
	}
	return out
}

// Script writes demo.sh: the successful path of the run (the commands that
// exited 0 or were left running in the background,
// commandlog.Command.OnSuccessfulPath, in the order they ran) for one bash
// session, with `set -e` and a header saying where it came from. Each
// command runs as it ran: where
// the log says the keyless runner ran something else for it (ran: the
// checkout linked where the README clones this repository), that runs,
// the README's text shown in a comment above it; a cwd hint's directory
// is entered and left, a setup hint's command runs first, a command left
// running in the background (a server) starts in the background and is
// waited for as the run waited, and stopped when the script ends. A
// command that holds control or hidden characters runs as `eval $'…'`
// (termtext.Bash), its bytes exactly as recorded, after a comment that
// shows it; one that redaction altered, or that holds a NUL, is shown in a
// comment and not run.
func Script(w io.Writer, l *commandlog.Log, o Options) error {
	if l == nil {
		return fmt.Errorf("write demo script: no command log")
	}
	l = redact.Copy(l, redact.New(o.Secrets)) // a copy: l itself is left alone
	src := cmp.Or(o.Source, "command_log.json")
	var ok []commandlog.Command
	checkout, background := false, false
	for _, c := range l.Commands {
		if c.OnSuccessfulPath() {
			ok = append(ok, c)
			checkout = checkout || commandlog.UsesCheckout(c.Ran) || c.Cwd != "" && !path.IsAbs(c.Cwd)
			background = background || c.Background != nil
		}
	}
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	fmt.Fprintf(&b, "# demo.sh: generated by readme2demo from %s\n", oneLine(src))
	agent := ""
	if l.AgentVersion != nil {
		agent = " " + oneLine(*l.AgentVersion)
	}
	fmt.Fprintf(&b, "# Run by the %s engine%s; outcome: %s.\n", oneLine(l.Engine), agent, oneLine(outcomeLine(l)))
	if background {
		fmt.Fprintf(&b, "# The successful path of that run: the %d command(s) that exited 0 or were\n", len(ok))
		b.WriteString("# left running in the background, in the order they ran, in one shell (cd\n")
		b.WriteString("# and export carry over).\n")
	} else {
		fmt.Fprintf(&b, "# The successful path of that run: the %d command(s) that exited 0, in the\n", len(ok))
		b.WriteString("# order they ran, in one shell (cd and export carry over).\n")
	}
	if left := len(l.Commands) - len(ok); left > 0 {
		fmt.Fprintf(&b, "# Left out: %d failed or unfinished command(s).\n", left)
	}
	if n := len(l.FileEdits); n > 0 {
		fmt.Fprintf(&b, "# Not included: %d file edit(s) the agent made with its edit tool.\n", n)
	}
	b.WriteString("# Run it from the repository root. Secrets in the log were redacted.\n")
	b.WriteString("set -e\n")
	if checkout {
		b.WriteString("# The checkout, as the commands that ran in place of the README's name it.\n")
		fmt.Fprintf(&b, "%s=$PWD\n", commandlog.CheckoutVar)
	}
	if background {
		b.WriteString(readyFunc)
	}
	for _, c := range ok {
		writeCommand(&b, c)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write demo script: %w", err)
	}
	return nil
}

// defaultReadyWait is how long demo.sh waits for a background command's
// readiness check, in seconds, when the log does not say how long the run
// waited.
const defaultReadyWait = 60

// readyFunc waits for a command started in the background, as the runner
// did: until its readiness check succeeds, or two seconds without one;
// the script's end stops what it started.
const readyFunc = `# Commands the run left running in the background (servers) start in the
# background here too; __demo_ready waits for one as the run did, and the
# script's end stops them.
__demo_ready() { # SECONDS [CHECK]
	local i
	if [ -z "${2-}" ]; then sleep 2; return 0; fi
	for ((i = 0; i < $1; i++)); do
		(eval "$2") </dev/null >/dev/null 2>&1 && return 0
		sleep 1
	done
	echo "demo.sh: not ready after $1 s: $2" >&2
	return 1
}
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
`

// writeCommand writes one command of the successful path as it ran.
func writeCommand(b *strings.Builder, c commandlog.Command) {
	b.WriteString("\n")
	if c.Source != nil {
		fmt.Fprintf(b, "# %s line %d\n", oneLine(c.Source.File), c.Source.Line)
	}
	run := c.Command
	if c.Ran != "" {
		run = c.Ran
	}
	var ready string
	if c.Background != nil {
		ready = c.Background.Ready
	}
	// As recorded, CRs included (bash -c ran them as part of the words);
	// only trailing line feeds go.
	run = strings.TrimRight(run, "\n")
	for _, part := range []string{run, c.Setup, ready, c.Cwd} {
		if why := unrunnable(part); why != "" {
			fmt.Fprintf(b, "# left out: %s:\n", why)
			comment(b, strings.TrimRight(c.Command, "\n"))
			return
		}
	}
	if c.Cwd != "" {
		b.WriteString("# its block's cwd hint: it runs in " + oneLine(c.Cwd) + "\n")
		dir := bashWord(c.Cwd)
		if !path.IsAbs(c.Cwd) {
			dir = commandlog.CheckoutWord + "/" + dir
		}
		b.WriteString("__demo_prev=$PWD; cd -- " + dir + "\n")
	}
	if c.Setup != "" {
		b.WriteString("# its block's setup hint, which ran first, unseen:\n")
		writeRunnable(b, c.Setup)
	}
	if c.Ran != "" {
		b.WriteString("# the README's command, which ran as the line(s) below:\n")
		comment(b, strings.TrimRight(c.Command, "\n"))
	}
	if c.Background != nil {
		b.WriteString("(\n")
		writeRunnable(b, run)
		b.WriteString(") </dev/null &\n")
		if ready == "" {
			b.WriteString("__demo_ready 0 # no readiness check: two seconds\n")
		} else {
			w := bashWord(ready)
			secs := c.Background.TimeoutS
			if secs <= 0 {
				secs = defaultReadyWait
			}
			fmt.Fprintf(b, "__demo_ready %d %s\n", secs, w)
		}
	} else {
		writeRunnable(b, run)
	}
	if c.LeaveCwd {
		b.WriteString("cd -- \"$__demo_prev\"\n")
	}
}

// unrunnable says why text cannot run as recorded, "" when it can.
func unrunnable(text string) string {
	switch _, quotable := termtext.Bash(text); {
	case redact.ContainsMarker(text):
		return "redaction altered this command (it held a secret), so it cannot run as recorded"
	case !quotable:
		return "the command holds a NUL byte, which no bash command can hold"
	}
	return ""
}

// writeRunnable writes shell text to run as it ran: as it is, or, when it
// holds control or hidden characters, byte for byte as an eval of a $'…'
// string that a reader (and cat) sees every character of.
func writeRunnable(b *strings.Builder, text string) {
	if !termtext.HasControl(text) {
		b.WriteString(text + "\n")
		return
	}
	quoted, _ := termtext.Bash(text)
	b.WriteString("# this command holds characters that do not show or that act on a terminal\n")
	b.WriteString("# (shown as ‹U+…›, ^[, …); it runs byte for byte as recorded:\n")
	comment(b, text)
	b.WriteString("eval " + quoted + "\n")
}

// bashWord quotes s as one shell word: single quotes, or $'…' when it
// holds control or hidden characters (s holds no NUL: unrunnable).
func bashWord(s string) string {
	if termtext.HasControl(s) {
		q, _ := termtext.Bash(s)
		return q
	}
	return shell.Quote(s)
}

// oneLine keeps a header value on its comment line, control and hidden
// characters drawn visibly (before the blanks are folded, so that a line
// separator is shown, not folded).
func oneLine(s string) string { return strings.Join(strings.Fields(termtext.Visible(s)), " ") }

// comment writes cmd as comment lines, every control and hidden character
// drawn visibly.
func comment(b *strings.Builder, cmd string) {
	for _, line := range strings.Split(termtext.Visible(cmd), "\n") {
		b.WriteString("#   " + line + "\n")
	}
}
