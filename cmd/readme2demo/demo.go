package main

import (
	"context"
	"fmt"
	"os"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/demo"
	"github.com/readme2demo/readme2demo/internal/secrets"
)

func init() {
	verbs["demo"] = verb{summary: "turn command_log.json into demo.cast (asciicast v2) and demo.sh (the successful path)", run: runDemo}
}

func runDemo(_ context.Context, args []string, e env) int {
	fs := newFlagSet("demo", e)
	out := fs.String("o", ".", "directory to write demo.cast and demo.sh into (created if missing)")
	title := fs.String("title", "", `cast title (default "readme2demo: <engine> (<outcome>)")`)
	width := fs.Int("width", demo.DefaultWidth, "terminal columns of the cast")
	height := fs.Int("height", demo.DefaultHeight, "terminal rows of the cast")
	htmlOut := addHTMLFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, `Usage: readme2demo demo [-o DIR] [--title T] [--width N] [--height N] [--html [--diff FILE]] COMMAND_LOG

Writes the demo of a run into DIR:
  demo.cast  an asciicast v2 recording: each command typed after a prompt,
             then its output, paced by the recorded durations (capped);
             play it with "asciinema play demo.cast".
  demo.sh    the run's successful path (the commands that exited 0, in order)
             as a bash script with set -e, saying where it came from.
  report.html  with --html: the run as one self-contained page (verdict,
             commands and outputs, FIX list, README diff, a demo player);
             it needs no network to view.

Secrets stay redacted: known token shapes, and the values of the credential
variables of every engine when they are set in this environment.

Exit status: 0 written, 2 bad flags or an unreadable or invalid command log,
1 the files could not be written.

Flags:
`)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "readme2demo demo: give exactly one command log (see --help)")
		return exitUsage
	}
	if *width <= 0 || *height <= 0 {
		fmt.Fprintln(e.stderr, "readme2demo demo: --width and --height must be positive")
		return exitUsage
	}
	path := fs.Arg(0)
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: open command log: %v\n", err)
		return exitUsage
	}
	defer f.Close()
	log, err := commandlog.Decode(f)
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: %s: %v\n", path, err)
		return exitUsage
	}
	cast, script, err := demo.WriteFiles(*out, log, demo.Options{
		Title: *title, Width: *width, Height: *height, Source: path, Secrets: credentialValues(e.getenv),
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(e.stdout, "wrote %s\nwrote %s\n", cast, script)
	return htmlOut.writeHTML(e, log, path, *out, *title, *width, *height)
}

// credentialValues returns the secret values in the environment
// (internal/secrets decides which).
func credentialValues(getenv func(string) string) []string { return secrets.Values(getenv, nil) }
