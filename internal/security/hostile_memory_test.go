package security

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
)

// bombRSSLimit is the peak RSS `readme2demo run` may reach, whatever the
// size of the README a command writes.
const bombRSSLimit = 96 << 20

// buildCLI builds cmd/readme2demo into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "readme2demo")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/readme2demo/readme2demo/cmd/readme2demo")
	b, err := cmd.CombinedOutput()
	assert.NilError(t, err, "go build: %s", b)
	return bin
}

// runCLI runs the binary and returns its exit code, stderr and peak RSS.
func runCLI(t *testing.T, bin string, args ...string) (int, string, int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "R2D_IMAGE="+sandboxtest.Image())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		assert.Assert(t, ok, "run %s: %v", bin, err)
		code = ee.ExitCode()
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return code, stderr.String(), ru.Maxrss << 10 // KiB on Linux
}

// 6. A README written large by a command (here 8 MiB and 48 MiB of short
// lines, the worst case for a line diff) does not exhaust host memory:
// peak RSS of `readme2demo run` stays under one limit whatever the size,
// the run completes and says the README changed too much to diff. A
// README that is already too large in the repository is refused up front.
func TestHostileReadmeBombMemoryIsBounded(t *testing.T) {
	sandboxtest.Docker(t)
	bin := buildCLI(t)
	for _, size := range []string{"8M", "48M"} {
		t.Run("written "+size, func(t *testing.T) {
			repo := writeRepo(t, "# Bomb\n\n```bash\n"+
				"yes 'readme2demo bomb line' | head -c "+size+" > README.md\n"+
				"wc -c README.md\n"+
				"```\n")
			out := filepath.Join(t.TempDir(), "out")
			start := time.Now()
			code, stderr, rss := runCLI(t, bin, "run", "--engine", "markdown", "--network", "none", "--timeout", "3m", "--out", out, repo)
			t.Logf("exit %d after %s, peak RSS %d MiB\n%s", code, time.Since(start).Round(time.Second), rss>>20, tail(stderr, 3000))
			assert.Check(t, is.Equal(code, 0))
			assert.Check(t, rss < bombRSSLimit, "peak RSS %d MiB, limit %d MiB", rss>>20, bombRSSLimit>>20)
			diff, err := os.ReadFile(filepath.Join(out, "readme.diff"))
			assert.NilError(t, err)
			assert.Check(t, len(diff) < 4096, "readme.diff is %d bytes", len(diff))
			assert.Check(t, is.Contains(string(diff), "changed too much to diff"))
			report, err := os.ReadFile(filepath.Join(out, "report.md"))
			assert.NilError(t, err)
			assert.Check(t, is.Contains(string(report), "changed too much to diff"))
		})
	}
	t.Run("already large in the repository", func(t *testing.T) {
		repo := t.TempDir()
		// Written line by line: this process's own memory counts in the
		// child's peak (Linux accounts the forking process's pages at
		// exec), so the test must not hold the README itself.
		f, err := os.Create(filepath.Join(repo, "README.md"))
		assert.NilError(t, err)
		w := bufio.NewWriter(f)
		line := []byte("# big readme line\n")
		for i := 0; i < (64<<20)/len(line); i++ {
			_, err = w.Write(line)
			assert.NilError(t, err)
		}
		assert.NilError(t, w.Flush())
		assert.NilError(t, f.Close())
		debug.FreeOSMemory()
		code, stderr, rss := runCLI(t, bin, "run", "--engine", "markdown", "--network", "none", "--out", filepath.Join(t.TempDir(), "out"), repo)
		t.Logf("exit %d, peak RSS %d MiB\n%s", code, rss>>20, tail(stderr, 2000))
		assert.Check(t, is.Equal(code, 2), "a configuration error")
		assert.Check(t, is.Contains(stderr, "README.md"))
		assert.Check(t, is.Contains(stderr, "larger than"))
		assert.Check(t, rss < bombRSSLimit, "peak RSS %d MiB", rss>>20)
	})
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("…%s", s[len(s)-n:])
}
