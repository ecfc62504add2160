package pinbump

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/drift"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// FixturePath is where a version's capture of a scenario is committed,
// relative to the repository root.
func FixturePath(engine, version, scenario string) string {
	return "testdata/fixtures/" + engine + "/real-" + version + "-" + scenario + ".jsonl"
}

// GoldenPath is where the command log of that fixture is committed.
func GoldenPath(engine, version, scenario string) string {
	return "testdata/golden/" + engine + "/real-" + version + "-" + scenario + ".json"
}

// Golden is the golden command log of a transcript, exactly as the engines'
// golden test computes it (`go test ./engines -update`): parsed, redacted by
// pattern, validated and encoded.
func Golden(engine string, transcript []byte) ([]byte, error) {
	eng, err := engines.Lookup(engine)
	if err != nil {
		return nil, fmt.Errorf("write golden: %w", err)
	}
	l, err := eng.ParseTranscript(bytes.NewReader(transcript))
	if err != nil {
		return nil, fmt.Errorf("write golden: parse: %w", err)
	}
	redact.Log(l, redact.New(nil))
	if err := commandlog.Validate(l); err != nil {
		return nil, fmt.Errorf("write golden: %w", err)
	}
	var b bytes.Buffer
	if err := commandlog.Encode(&b, l); err != nil {
		return nil, fmt.Errorf("write golden: %w", err)
	}
	return b.Bytes(), nil
}

// fixtures are the files a bump adds (Local), in order.
type fixtures struct {
	order []string
	files map[string][]byte
}

// prepareFixtures reads the transcripts of a drift run (its output
// directory driftDir, drift.json included) for engine at version, each with
// its golden command log, and the CLI's session file of each run (Codex's
// rollout, Gemini CLI's chat session) when drift kept one, with its own
// golden, writing nothing; and the engine's drift report. The run must have
// checked that version and found no drift (drift.Summary.Verified), and no
// transcript may hold anything that looks like a credential.
func prepareFixtures(engine, version, driftDir string) (report string, fx *fixtures, err error) {
	sum, err := drift.ReadSummary(driftDir)
	if err != nil {
		return "", nil, fmt.Errorf("bump pin: %w", err)
	}
	check, run, err := sum.Verified(engine, version)
	if err != nil {
		return "", nil, fmt.Errorf("bump pin: %w", err)
	}
	if len(run.Scenarios) == 0 || strings.Contains(run.Dir, "..") || filepath.IsAbs(run.Dir) {
		return "", nil, fmt.Errorf("add fixtures: %s lists no transcripts for %s %s", drift.SummaryFile, engine, version)
	}
	scan := redact.New([]string{scriptedllm.DummyAPIKey})
	fx = &fixtures{files: map[string][]byte{}}
	// add adds a fixture f read from src, and its golden g.
	add := func(src string, b []byte, f, g string) error {
		if found := scan.Found(string(b)); len(found) > 0 {
			return fmt.Errorf("add fixtures: %s holds what looks like a credential (%s); not committing it", src, strings.Join(found, ", "))
		}
		golden, err := Golden(engine, b)
		if err != nil {
			return fmt.Errorf("add fixtures: %s: %w", src, err)
		}
		fx.files[f], fx.files[g] = b, golden
		fx.order = append(fx.order, f, g)
		return nil
	}
	for _, sc := range run.Scenarios {
		src := filepath.Join(driftDir, run.Dir, sc+".jsonl")
		tr, err := os.ReadFile(src)
		if err != nil {
			return "", nil, fmt.Errorf("add fixtures: %w", err)
		}
		if len(bytes.TrimSpace(tr)) == 0 {
			return "", nil, fmt.Errorf("add fixtures: %s is empty", src)
		}
		if err := add(src, tr, FixturePath(engine, version, sc), GoldenPath(engine, version, sc)); err != nil {
			return "", nil, err
		}
		// The CLI's session file of the same run, when drift kept one: a
		// fixture of its own (the engines read both), with its golden.
		for _, suffix := range sessionSuffixes {
			src := filepath.Join(driftDir, run.Dir, sc+suffix)
			b, err := os.ReadFile(src)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return "", nil, fmt.Errorf("add fixtures: %w", err)
			}
			base := "real-" + version + "-" + sc + suffix
			if err := add(src, b, "testdata/fixtures/"+engine+"/"+base,
				"testdata/golden/"+engine+"/"+strings.TrimSuffix(base, filepath.Ext(base))+".json"); err != nil {
				return "", nil, err
			}
		}
	}
	return check.Report, fx, nil
}

// sessionSuffixes are the names drift keeps CLI session files under
// (agentcli.CLI.SessionSuffix).
var sessionSuffixes = []string{".rollout.jsonl", ".session.jsonl", ".session.json"}

// write writes the fixtures under root and returns their paths, relative
// to root.
func (fx *fixtures) write(root string) ([]string, error) {
	for _, rel := range fx.order {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, fmt.Errorf("add fixtures: %w", err)
		}
		if err := os.WriteFile(p, fx.files[rel], 0o644); err != nil {
			return nil, fmt.Errorf("add fixtures: %w", err)
		}
	}
	return fx.order, nil
}
