package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/exitcode"
	"github.com/readme2demo/readme2demo/internal/htmlreport"
	"github.com/readme2demo/readme2demo/internal/pipeline"
)

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
		Secrets: credentialValues(e.getenv), Width: o.width, Height: o.height,
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "readme2demo demo: %v\n", err)
		return exitcode.Failed
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", path)
	return exitcode.OK
}
