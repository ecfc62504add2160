//go:build !unix

package plan

// oNoFollow is not available here; the Lstat check stands alone.
const oNoFollow = 0
