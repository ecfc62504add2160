package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/demo"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/htmlreport"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/secrets"
)

// demoOptions are the demo verb's flags.
type demoOptions struct {
	out, title    string
	width, height int
	html          bool
	diff          string
}

func newDemoCmd(e env) *cobra.Command {
	var o demoOptions
	cmd := &cobra.Command{
		Use:   "demo [flags] COMMAND_LOG",
		Short: "turn command_log.json into demo.cast (asciicast v2) and demo.sh (the successful path)",
		Long: `Writes the demo of a run into the --out directory:
  demo.cast    an asciicast v2 recording: each command typed after a prompt,
               then its output, paced by the recorded durations (capped);
               play it with "asciinema play demo.cast".
  demo.sh      the run's successful path (the commands that exited 0, in
               order) as a bash script with set -e, saying where it came from.
  report.html  with --html: the run as one self-contained page (verdict,
               commands and outputs, FIX list, README diff, a demo player);
               it needs no network to view.

Secrets stay redacted: known token shapes, and the values of the credential
variables of every engine when they are set in this environment.

Exit status: 0 written, 2 bad flags or an unreadable or invalid command log,
1 the files could not be written.`,
		Args: oneArg("command log"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(runDemo(o, args[0], e))
		},
	}
	f := cmd.Flags()
	addOutFlag(cmd, &o.out, ".", "directory to write demo.cast and demo.sh into (created if missing)")
	f.StringVar(&o.title, "title", "", `cast title (default "readme2demo: <engine> (<outcome>)")`)
	f.IntVar(&o.width, "width", demo.DefaultWidth, "terminal columns of the cast")
	f.IntVar(&o.height, "height", demo.DefaultHeight, "terminal rows of the cast")
	f.BoolVar(&o.html, "html", false, "also write report.html: the run as one self-contained page with a player for the demo")
	f.StringVar(&o.diff, "diff", "", "README diff to show in report.html; implies --html (default: "+pipeline.ReadmeDiffFile+" beside COMMAND_LOG, if present)")
	return cmd
}

func runDemo(o demoOptions, path string, e env) int {
	if o.width <= 0 || o.height <= 0 {
		fmt.Fprintln(e.stderr, "readme2demo demo: --width and --height must be positive")
		return exitcode.Usage
	}
	log, ok := openLog("demo", path, e)
	if !ok {
		return exitcode.Usage
	}
	cast, script, err := demo.WriteFiles(o.out, log, demo.Options{
		Title: o.title, Width: o.width, Height: o.height, Source: path, Secrets: secrets.Values(e.getenv, nil),
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: %v\n", err)
		return exitcode.Failed
	}
	fmt.Fprintf(e.stdout, "wrote %s\nwrote %s\n", cast, script)
	return writeHTML(o, e, log, path)
}

// writeHTML writes DIR/report.html when --html or --diff is set and
// returns the exit code.
func writeHTML(o demoOptions, e env, l *commandlog.Log, logPath string) int {
	if !o.html && o.diff == "" {
		return exitcode.OK
	}
	diffPath, explicit := o.diff, o.diff != ""
	if !explicit {
		diffPath = filepath.Join(filepath.Dir(logPath), pipeline.ReadmeDiffFile)
	}
	diff, err := os.ReadFile(diffPath)
	if err != nil && (explicit || !errors.Is(err, fs.ErrNotExist)) {
		fmt.Fprintf(e.stderr, "readme2demo demo: read README diff: %v\n", err)
		return exitcode.Usage
	}
	path, err := htmlreport.WriteFile(o.out, l, htmlreport.Options{
		Title: o.title, Source: filepath.Base(logPath), ReadmeDiff: string(diff),
		Secrets: secrets.Values(e.getenv, nil), Width: o.width, Height: o.height,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: %v\n", err)
		return exitcode.Failed
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", path)
	return exitcode.OK
}
