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
	"path/filepath"
	"strings"
	"time"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
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
// exited 0, in the order they ran) for one bash session, with `set -e` and
// a header saying where it came from. A command that holds control or
// hidden characters runs as `eval $'…'` (termtext.Bash), its bytes exactly
// as recorded, after a comment that shows it; one that redaction altered,
// or that holds a NUL, is shown in a comment and not run.
func Script(w io.Writer, l *commandlog.Log, o Options) error {
	if l == nil {
		return fmt.Errorf("write demo script: no command log")
	}
	l = redact.Copy(l, redact.New(o.Secrets)) // a copy: l itself is left alone
	src := cmp.Or(o.Source, "command_log.json")
	var ok []commandlog.Command
	for _, c := range l.Commands {
		if c.Status == commandlog.StatusOK && strings.TrimSpace(c.Command) != "" {
			ok = append(ok, c)
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
	fmt.Fprintf(&b, "# The successful path of that run: the %d command(s) that exited 0, in the\n", len(ok))
	b.WriteString("# order they ran, in one shell (cd and export carry over).\n")
	if left := len(l.Commands) - len(ok); left > 0 {
		fmt.Fprintf(&b, "# Left out: %d failed or unfinished command(s).\n", left)
	}
	if n := len(l.FileEdits); n > 0 {
		fmt.Fprintf(&b, "# Not included: %d file edit(s) the agent made with its edit tool.\n", n)
	}
	b.WriteString("# Run it from the repository root. Secrets in the log were redacted.\n")
	b.WriteString("set -e\n")
	for _, c := range ok {
		b.WriteString("\n")
		if c.Source != nil {
			fmt.Fprintf(&b, "# %s line %d\n", oneLine(c.Source.File), c.Source.Line)
		}
		// As recorded, CRs included (bash -c ran them as part of the
		// words); only trailing line feeds go.
		cmd := strings.TrimRight(c.Command, "\n")
		quoted, quotable := termtext.Bash(cmd)
		switch {
		case redact.ContainsMarker(cmd) || !quotable:
			// Shown, commented out, never run.
			why := "redaction altered this command (it held a secret), so it cannot run as recorded"
			if !quotable {
				why = "the command holds a NUL byte, which no bash command can hold"
			}
			fmt.Fprintf(&b, "# left out: %s:\n", why)
			comment(&b, cmd)
		case termtext.HasControl(cmd):
			// Run as it ran, byte for byte, written so that a reader (and
			// cat) sees every character: eval of a $'…' string.
			b.WriteString("# this command holds characters that do not show or that act on a terminal\n")
			b.WriteString("# (shown as ‹U+…›, ^[, …); it runs byte for byte as recorded:\n")
			comment(&b, cmd)
			b.WriteString("eval " + quoted + "\n")
		default:
			b.WriteString(cmd)
			b.WriteString("\n")
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write demo script: %w", err)
	}
	return nil
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
