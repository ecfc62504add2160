package textdiff

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

func readmeLines(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, "line "+strings.Repeat("x", i%7)+string(rune('a'+i%26)))
	}
	return out
}

func join(l []string) string { return strings.Join(l, "\n") + "\n" }

// Unified agrees with GNU diff -u on the hunks (headers differ: diff adds
// time stamps).
func TestUnifiedMatchesGNUDiff(t *testing.T) {
	if _, err := exec.LookPath("diff"); err != nil {
		t.Fatalf("GNU diff is needed to check the output: %v", err)
	}
	base := readmeLines(40)
	edit := func(f func([]string) []string) string {
		c := append([]string(nil), base...)
		return join(f(c))
	}
	cases := map[string]string{
		"one line changed":    edit(func(l []string) []string { l[10] = "make all"; return l }),
		"line added at top":   edit(func(l []string) []string { return append([]string{"# Title"}, l...) }),
		"line removed at end": edit(func(l []string) []string { return l[:len(l)-1] }),
		"two distant edits":   edit(func(l []string) []string { l[3] = "a"; l[30] = "b"; return l }),
		"two close edits":     edit(func(l []string) []string { l[10] = "a"; l[15] = "b"; return l }),
		"block replaced": edit(func(l []string) []string {
			return append(append(append([]string{}, l[:5]...), "new 1", "new 2", "new 3"), l[12:]...)
		}),
		"everything new": "completely\ndifferent\n",
		"emptied":        "",
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	assert.NilError(t, os.WriteFile(a, []byte(join(base)), 0o644))
	for name, after := range cases {
		t.Run(name, func(t *testing.T) {
			b := filepath.Join(dir, "b")
			assert.NilError(t, os.WriteFile(b, []byte(after), 0o644))
			out, _ := exec.Command("diff", "-U3", a, b).Output()
			want := string(out)
			want = want[strings.Index(want, "@@"):]
			got, err := Unified("a/README.md", "b/README.md", join(base), after)
			assert.NilError(t, err)
			assert.Assert(t, strings.HasPrefix(got, "--- a/README.md\n+++ b/README.md\n"))
			assert.Equal(t, got[strings.Index(got, "@@"):], want)
		})
	}
}

func unified(t *testing.T, a, b string) string {
	t.Helper()
	d, err := Unified("a", "b", a, b)
	assert.NilError(t, err)
	return d
}

func TestUnifiedEqual(t *testing.T) {
	assert.Equal(t, unified(t, "x\ny\n", "x\ny\n"), "")
	assert.Equal(t, unified(t, "x\ny", "x\ny\n"), "", "a final newline alone is not a change")
	assert.Equal(t, unified(t, "", ""), "")
}

// Many changed lines still diff, within the limits.
func TestUnifiedLargeInput(t *testing.T) {
	a := join(readmeLines(5000))
	b := strings.ReplaceAll(a, "x", "y")
	got := unified(t, a, b)
	assert.Assert(t, strings.HasPrefix(got, "--- a\n+++ b\n@@ -1,"))
	assert.Assert(t, strings.Contains(got, "+line yyy"))
}

// Past the limits there is no diff, but an error that says so; memory
// stays bounded (TestDiffMemoryIsBounded).
func TestUnifiedTooLarge(t *testing.T) {
	small := "# title\n"
	for name, after := range map[string]string{
		"bytes": strings.Repeat("a long line of the README bomb\n", MaxBytes/30+1),
		"lines": strings.Repeat("y\n", MaxLines+1),
	} {
		_, err := Unified("a/README.md", "b/README.md", small, after)
		assert.Assert(t, errors.Is(err, ErrTooLarge), name)
		assert.ErrorContains(t, err, "README.md changed too much to diff")
	}
}

// The diff's peak memory does not grow with the size of what it is given:
// at the limits it stays within a fixed budget.
func TestDiffMemoryIsBounded(t *testing.T) {
	a := strings.Repeat("y\n", MaxLines-1)
	b := strings.Repeat("n\n", MaxLines-1)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Unified("a", "b", a, b)
	runtime.ReadMemStats(&after)
	if err != nil {
		assert.Assert(t, errors.Is(err, ErrTooLarge))
	}
	assert.Assert(t, after.TotalAlloc-before.TotalAlloc < 64<<20, "allocated %d MiB", (after.TotalAlloc-before.TotalAlloc)>>20)
}
