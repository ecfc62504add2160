package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/htmlreport"
)

// readmeDiffFile is the README diff the pipeline writes beside
// command_log.json.
const readmeDiffFile = "readme.diff"

// htmlFlags are the demo verb's flags for report.html.
type htmlFlags struct {
	html *bool
	diff *string
}

func addHTMLFlags(fs *flag.FlagSet) *htmlFlags {
	return &htmlFlags{
		html: fs.Bool("html", false, "also write report.html: the run as one self-contained page with a player for the demo"),
		diff: fs.String("diff", "", "README diff to show in report.html; implies --html (default: "+readmeDiffFile+" beside COMMAND_LOG, if present)"),
	}
}

// writeHTML writes DIR/report.html when --html is set and returns the exit
// code.
func (h *htmlFlags) writeHTML(e env, l *commandlog.Log, logPath, dir, title string, width, height int) int {
	if !*h.html && *h.diff == "" {
		return exitOK
	}
	diffPath, explicit := *h.diff, *h.diff != ""
	if !explicit {
		diffPath = filepath.Join(filepath.Dir(logPath), readmeDiffFile)
	}
	diff, err := os.ReadFile(diffPath)
	if err != nil && (explicit || !errors.Is(err, fs.ErrNotExist)) {
		fmt.Fprintf(e.stderr, "readme2demo demo: read README diff: %v\n", err)
		return exitUsage
	}
	path, err := htmlreport.WriteFile(dir, l, htmlreport.Options{
		Title: title, Source: filepath.Base(logPath), ReadmeDiff: string(diff),
		Secrets: credentialValues(e.getenv), Width: width, Height: height,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", path)
	return exitOK
}
