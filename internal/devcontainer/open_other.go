//go:build !unix

package devcontainer

import "os"

// openNoFollow opens p for reading; the components were checked with Lstat.
func openNoFollow(p string) (*os.File, error) { return os.Open(p) }
