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
