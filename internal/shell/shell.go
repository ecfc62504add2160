// Package shell owns how readme2demo writes a value into a POSIX shell
// command line: the engines' container commands and the keyless runner's
// generated script quote with it.
package shell

import "strings"

// Quote quotes s for a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes, with each
// single quote inside closed, escaped and reopened.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
