package engines_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
)

// Layout shared by every engine:
//
//	testdata/fixtures/<engine>/<name>.<ext>   transcripts (our captures and hand-made edge cases)
//	testdata/golden/<engine>/<name>.json      the expected command log of each fixture
//	testdata/corpus/<engine>/<file>           other projects' real transcripts (testdata/corpus/SOURCES.md)
//	testdata/golden/corpus/<engine>/<file>.json their expected command logs
//
// `go test ./engines -update` rewrites the golden files; review the diff.

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	assert.NilError(t, err)
	return root
}

// parseFile parses a transcript the way `readme2demo parse` does: engine,
// then pattern redaction, then validation.
func parseFile(t *testing.T, eng engines.AgentEngine, path string) *commandlog.Log {
	t.Helper()
	l, err := parseChecked(eng, path)
	assert.NilError(t, err)
	return l
}

func parseChecked(eng engines.AgentEngine, path string) (*commandlog.Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l, err := eng.ParseTranscript(f)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	redact.Log(l, redact.New(nil))
	if err := commandlog.Validate(l); err != nil {
		return nil, fmt.Errorf("validate %s: %w", path, err)
	}
	return l, nil
}

// fixtureLogs holds parseFile's log of each fixture by its own engine for
// the tests that only read it (TestGoldenFixtures, TestDetectEveryFixture):
// every fixture is parsed once per test binary, not once per test.
var fixtureLogs sync.Map // engine name and path -> func() (*commandlog.Log, error)

// fixtureLog is parseFile for a log the caller does not change.
func fixtureLog(t *testing.T, eng engines.AgentEngine, path string) *commandlog.Log {
	t.Helper()
	parsed, _ := fixtureLogs.LoadOrStore(eng.Name()+"\x00"+path, sync.OnceValues(func() (*commandlog.Log, error) {
		return parseChecked(eng, path)
	}))
	l, err := parsed.(func() (*commandlog.Log, error))()
	assert.NilError(t, err)
	return l
}

func encode(t *testing.T, l *commandlog.Log) string {
	t.Helper()
	var buf bytes.Buffer
	assert.NilError(t, commandlog.Encode(&buf, l))
	return buf.String()
}

func transcripts(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	assert.NilError(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".stderr") {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

func goldenName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".json"
}

// TestGoldenFixtures parses every fixture of every registered engine and
// compares the command log with its golden file.
func TestGoldenFixtures(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	for _, name := range engines.Names() {
		eng, err := engines.Lookup(name)
		assert.NilError(t, err)
		for _, path := range transcripts(t, filepath.Join(root, "testdata", "fixtures", name)) {
			t.Run(name+"/"+filepath.Base(path), func(t *testing.T) {
				got := encode(t, fixtureLog(t, eng, path))
				golden.Assert(t, got, filepath.Join(root, "testdata", "golden", name, goldenName(path)))
			})
		}
	}
}

// TestGoldenCorpus parses every transcript other projects published for an
// engine (testdata/corpus/<engine>/) and compares it with its golden file.
func TestGoldenCorpus(t *testing.T) {
	root := repoRoot(t)
	corpus := filepath.Join(root, "testdata", "corpus")
	parsed := 0
	for _, name := range engines.Names() {
		eng, err := engines.Lookup(name)
		assert.NilError(t, err)
		for _, path := range transcripts(t, filepath.Join(corpus, name)) {
			parsed++
			t.Run(name+"/"+filepath.Base(path), func(t *testing.T) {
				got := encode(t, parseFile(t, eng, path))
				golden.Assert(t, got, filepath.Join(root, "testdata", "golden", "corpus", name, filepath.Base(path)+".json"))
			})
		}
	}
	assert.Check(t, parsed > 0, "no corpus transcripts under %s", corpus)
}

// TestCorpusIsComplete: every corpus transcript belongs to a registered
// engine, names its source in testdata/corpus/SOURCES.md and has a golden
// command log, and every corpus golden still has its transcript.
func TestCorpusIsComplete(t *testing.T) {
	root := repoRoot(t)
	corpus := filepath.Join(root, "testdata", "corpus")
	sources, err := os.ReadFile(filepath.Join(corpus, "SOURCES.md"))
	assert.NilError(t, err)
	dirs, err := os.ReadDir(corpus)
	assert.NilError(t, err)
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		_, err := engines.Lookup(d.Name())
		assert.Check(t, err, "testdata/corpus/%s: no such engine, its transcripts are never parsed", d.Name())
		for _, path := range transcripts(t, filepath.Join(corpus, d.Name())) {
			rel := d.Name() + "/" + filepath.Base(path)
			assert.Check(t, bytes.Contains(sources, []byte("\n- "+rel+" | ")), "%s has no row in testdata/corpus/SOURCES.md", rel)
			_, err := os.Stat(filepath.Join(root, "testdata", "golden", "corpus", rel+".json"))
			assert.Check(t, err, "%s has no golden command log (go test ./engines -run TestGoldenCorpus -update)", rel)
		}
	}
	goldens, err := filepath.Glob(filepath.Join(root, "testdata", "golden", "corpus", "*", "*.json"))
	assert.NilError(t, err)
	for _, g := range goldens {
		rel := filepath.Base(filepath.Dir(g)) + "/" + strings.TrimSuffix(filepath.Base(g), ".json")
		_, err := os.Stat(filepath.Join(corpus, filepath.FromSlash(rel)))
		assert.Check(t, err, "golden %s has no corpus transcript", rel)
	}
}

// TestEveryEngineHasFixtures fails when an engine is registered without a
// fixture transcript and its golden command log: adding an engine without
// fixtures cannot pass CI.
func TestEveryEngineHasFixtures(t *testing.T) {
	root := repoRoot(t)
	for _, name := range engines.Names() {
		fixtures := transcripts(t, filepath.Join(root, "testdata", "fixtures", name))
		assert.Assert(t, len(fixtures) > 0, "engine %s has no transcripts in testdata/fixtures/%s", name, name)
		for _, f := range fixtures {
			g := filepath.Join(root, "testdata", "golden", name, goldenName(f))
			_, err := os.Stat(g)
			assert.NilError(t, err, "engine %s: fixture %s has no golden command log", name, filepath.Base(f))
		}
	}
}
