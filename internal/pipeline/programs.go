package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/plan"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// maxProgramsBytes bounds the image's command list (the default image's is
// under 10 KiB).
const maxProgramsBytes = 1 << 20

// imagePrograms reads the command list the sandbox image recorded when it
// was built (engines.ProgramsContainerPath) with read, the sandbox's reader
// of the run's own container before it starts. It is nil when the image has
// no list or an empty one (an older or custom image): the plan then keeps
// the default image's (plan.DefaultPrograms).
func imagePrograms(read sandbox.ReadFile) (map[string]bool, error) {
	b, err := read(engines.ProgramsContainerPath, maxProgramsBytes)
	if err != nil {
		return nil, fmt.Errorf("read the image's command list: %w", err)
	}
	if p := plan.ParsePrograms(string(b)); len(p) > 0 {
		return p, nil
	}
	return nil, nil
}

// inputFromImage is the sandbox's Prepare for an engine that prepares its
// own input (engines.InputPreparer). The input step made that input before
// Docker was asked (its errors come before any container), with the default
// image's command list; when the image the run uses recorded its own, the
// input is made again with it and replaces the first. A list that cannot
// be read leaves the first input, with a warning.
func (r *run) inputFromImage(_ context.Context, read sandbox.ReadFile) ([]sandbox.File, error) {
	programs, err := imagePrograms(read)
	if err != nil {
		fmt.Fprintf(r.cfg.Progress, "warning: %v; the plan uses the default image's\n", err)
		return nil, nil
	}
	if programs == nil {
		return nil, nil
	}
	text, err := input(r.eng, r.cfg, r.readmeText, programs)
	if err != nil {
		return nil, err
	}
	r.promptText = text
	return []sandbox.File{{Path: engines.PromptContainerPath, Data: []byte(text)}}, nil
}

// programsCache keeps the image command lists read by earlier runs on the
// host, one file per image ID, so a run of an image already seen reads its
// list without a copy out of the container (a daemon round trip, hundreds
// of milliseconds on a loaded machine). An image ID is the digest of the
// image's configuration, which names its layers: the same ID holds the
// same list. dir "" keeps nothing. The cache is best effort: a file that
// cannot be read or written is a miss, never an error.
type programsCache struct{ dir string }

// file is where the list of imageID is kept; ok is false for an ID that
// is not a sha256 digest (nothing is kept for it).
func (c programsCache) file(imageID string) (string, bool) {
	hex, ok := strings.CutPrefix(imageID, "sha256:")
	if c.dir == "" || !ok || len(hex) != 64 || strings.Trim(hex, "0123456789abcdef") != "" {
		return "", false
	}
	return filepath.Join(c.dir, "programs", hex), true
}

// reader is read with the command list of imageID answered from the
// cache when it holds it, and kept in the cache when read from the image.
func (c programsCache) reader(imageID string, read sandbox.ReadFile) sandbox.ReadFile {
	file, ok := c.file(imageID)
	if !ok {
		return read
	}
	return func(p string, limit int64) ([]byte, error) {
		if p != engines.ProgramsContainerPath || limit != maxProgramsBytes {
			return read(p, limit)
		}
		if b, err := readAtMost(file, limit); err == nil {
			return b, nil
		}
		b, err := read(p, limit)
		if err == nil {
			writeAtomically(file, b)
		}
		return b, err
	}
}

// readAtMost reads the file at p, an error when it holds more than limit
// bytes.
func readAtMost(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, limit)
	}
	return b, nil
}

// writeAtomically writes b to p through a temporary file renamed into
// place, so a reader never sees part of it; failures leave p as it was.
func writeAtomically(p string, b []byte) {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), p)
	}
	if werr != nil {
		os.Remove(f.Name())
	}
}
