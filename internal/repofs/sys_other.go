//go:build !unix

package repofs

import "io/fs"

const openFlags = 0

type fileID struct{}

// links is unknown here: the hard-link rule is not applied.
func links(fs.FileInfo) (uint64, bool) { return 0, false }

func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
