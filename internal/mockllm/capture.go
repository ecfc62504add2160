package mockllm

import (
	"fmt"
	"os"
	"path/filepath"
)

// captureDirs makes the fresh directories of one capture run: a project
// holding CaptureReadme and an empty home, under a temporary root that the
// caller removes.
func captureDirs() (root, project, home string, err error) {
	root, err = os.MkdirTemp("", "r2d-capture-")
	if err != nil {
		return "", "", "", fmt.Errorf("create capture dir: %w", err)
	}
	project, home = filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, d := range []string{project, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			os.RemoveAll(root)
			return "", "", "", fmt.Errorf("create capture dir: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte(CaptureReadme), 0o644); err != nil {
		os.RemoveAll(root)
		return "", "", "", fmt.Errorf("write capture readme: %w", err)
	}
	return root, project, home, nil
}

// sessionFile returns the newest file under home whose path, relative to
// home, matches one of patterns (filepath.Match syntax, one pattern per
// directory level): the session file the CLI wrote beside its stream (Codex's
// rollout, Gemini CLI's chat session). nil when there is none.
func sessionFile(home string, patterns ...string) ([]byte, error) {
	var newest string
	var newestMod int64
	for _, p := range patterns {
		matches, err := filepath.Glob(filepath.Join(home, p))
		if err != nil {
			return nil, fmt.Errorf("find session file: %w", err)
		}
		for _, m := range matches {
			st, err := os.Stat(m)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
			if mod := st.ModTime().UnixNano(); newest == "" || mod > newestMod {
				newest, newestMod = m, mod
			}
		}
	}
	if newest == "" {
		return nil, nil
	}
	b, err := os.ReadFile(newest)
	if err != nil {
		return nil, fmt.Errorf("read session file: %w", err)
	}
	return b, nil
}
