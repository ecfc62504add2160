package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/exitcode"
	is "gotest.tools/v3/assert/cmp"
)

func runVerb(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

func TestReportVerb(t *testing.T) {
	code, out, stderr := runVerb("report", "--readme", "README.md", "testdata/report/failed.json")
	assert.Equal(t, code, exitcode.OK, stderr)
	assert.Check(t, is.Contains(out, "## readme2demo: ❌ The README did not work"))
	assert.Check(t, is.Contains(out, "| 2 | ` make build ` | ❌ failed | 2 | ` README.md:18 ` |"))
	assert.Check(t, is.Contains(out, "$0.0512"))
	assert.Check(t, is.Contains(out, "make build needs libfoo-dev"))
}

func TestReportVerbSizeCap(t *testing.T) {
	code, out, _ := runVerb("report", "--max-bytes", "1500", "testdata/report/failed.json")
	assert.Equal(t, code, exitcode.OK)
	assert.Check(t, len(out) <= 1500, "%d bytes", len(out))
}

func TestReportVerbErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	assert.NilError(t, os.WriteFile(bad, []byte(`{"schema_version": 1, "engine": "", "outcome": "maybe"}`), 0o644))
	for _, args := range [][]string{{"report"}, {"report", "missing.json"}, {"report", bad}} {
		code, _, stderr := runVerb(args...)
		assert.Check(t, is.Equal(code, exitcode.Usage), "%v", args)
		assert.Check(t, stderr != "")
	}
}
