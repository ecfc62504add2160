// Command r2d-release is the release workflow's helper
// (.github/workflows/release.yml); internal/release holds its logic
// (RunCLI).
//
//	r2d-release matrix   --namespace ghcr.io/OWNER --version vX.Y.Z --repository OWNER/NAME --commit SHA
//	    prints the image builds as a JSON array (flavour, image, tags, build-args, labels)
//	r2d-release manifest --version vX.Y.Z --repository OWNER/NAME --commit SHA --digests DIR
//	    reads DIR/<flavour> (each holding NAME@sha256:DIGEST, as pushed) and prints sandbox-images.json
package main

import (
	"os"

	"github.com/readme2demo/readme2demo/internal/release"
)

func main() { os.Exit(release.RunCLI(os.Args[1:], os.Stdout, os.Stderr)) }
