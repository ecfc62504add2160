package release

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// RunCLI is the release workflow's helper, cmd/r2d-release (its doc lists
// the subcommands), on args without the program name: it prints to stdout
// and stderr and returns the exit status.
func RunCLI(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "matrix" && args[0] != "manifest") {
		fmt.Fprintln(stderr, "usage: r2d-release matrix|manifest [flags] (see cmd/r2d-release)")
		return 2
	}
	fs := flag.NewFlagSet("r2d-release "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	namespace := fs.String("namespace", "", "registry namespace of the images, e.g. ghcr.io/readme2demo (matrix)")
	version := fs.String("version", "", "the release tag, vMAJOR.MINOR.PATCH")
	repository := fs.String("repository", "", "owner/name of the repository released")
	commit := fs.String("commit", "", "the tagged commit (40 hex digits)")
	digests := fs.String("digests", "", "directory of <flavour> files holding NAME@sha256:DIGEST (manifest)")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if !IsVersion(*version) {
		fmt.Fprintf(stderr, "r2d-release: --version %q is not vMAJOR.MINOR.PATCH\n", *version)
		return 2
	}
	switch args[0] {
	case "matrix":
		if *namespace == "" {
			fmt.Fprintln(stderr, "r2d-release: --namespace is required")
			return 2
		}
		b, err := json.Marshal(BuildJobs(*namespace, *version, *repository, *commit))
		if err != nil {
			fmt.Fprintf(stderr, "r2d-release: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, string(b))
	case "manifest":
		refs := map[string]string{}
		for _, f := range Flavours {
			b, err := os.ReadFile(filepath.Join(*digests, f.Name))
			if err != nil {
				fmt.Fprintf(stderr, "r2d-release: read the %s image's digest: %v\n", f.Name, err)
				return 1
			}
			refs[f.Name] = strings.TrimSpace(string(b))
		}
		m, err := NewManifest(*version, *repository, *commit, refs)
		if err == nil {
			err = m.Encode(stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "r2d-release: %v\n", err)
			return 1
		}
	}
	return 0
}
