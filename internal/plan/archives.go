package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// Archives and downloads: what the commands that run download, and
// whether an archive a command extracts is one of them.

// missingArchive returns the archive a `tar x` or `unzip` extracts when it
// is not in the repository and no earlier command downloaded it (the README
// says in prose to download it from a releases page), "" otherwise.
func (pl *planner) missingArchive(cmds []simple) string {
	if !pl.repo.FilesKnown() {
		return ""
	}
	made := map[string]bool{} // what the chain's earlier commands download
	for _, s := range cmds {
		name := path.Base(s.name())
		if name != "tar" && name != "unzip" {
			for _, a := range s.args() {
				u, _, _ := strings.Cut(a, "?")
				made[path.Base(u)] = true
			}
			continue
		}
		for _, a := range s.args() {
			if strings.HasPrefix(a, "-") || !archiveRe.MatchString(a) || strings.Contains(a, "$") {
				continue
			}
			clean := strings.TrimPrefix(a, "./")
			if strings.ContainsAny(clean, "*?[") {
				// A pattern (tool-*.tar.gz): missing when nothing known
				// matches it.
				if !pl.globKnown(clean, made) {
					return a
				}
				continue
			}
			if !pl.inRepo(clean) && !pl.seen.mentioned[clean] && !pl.seen.mentioned[path.Base(clean)] && !made[path.Base(clean)] {
				return a
			}
		}
	}
	return ""
}

// globKnown reports a file pattern that a file of the checkout (in the
// session's directory), a word of a command that ran, or a download
// earlier in the chain matches; true when the directory is not known.
func (pl *planner) globKnown(pattern string, made map[string]bool) bool {
	if pl.seen.cwd == cwdUnknown {
		return true
	}
	match := func(name string) bool {
		ok, err := path.Match(pattern, name)
		return ok || err != nil // a malformed pattern is not judged
	}
	for f := range pl.repo.Files {
		if rel, ok := strings.CutPrefix(f, pl.seen.cwd+"/"); pl.seen.cwd == "" && match(f) || ok && match(rel) {
			return true
		}
	}
	for _, words := range []map[string]bool{pl.seen.mentioned, made} {
		for w := range words {
			if match(w) || match(path.Base(w)) {
				return true
			}
		}
	}
	return false
}

// downloadOutput returns the file curl or wget (name) saves a download
// to by its options: -o FILE or --output FILE (curl), -O FILE or
// --output-document FILE (wget), also as the last of short options
// (`curl -Lso FILE`, `wget -qO FILE`) or with "="; "" for none and for
// standard output ("-").
func downloadOutput(name string, args []string) string {
	long, short := "--output", byte('o')
	if name == "wget" {
		long, short = "--output-document", 'O'
	}
	for i, a := range args {
		v := ""
		switch {
		case strings.HasPrefix(a, long+"="):
			v = strings.TrimPrefix(a, long+"=")
		case i+1 < len(args) && (a == long || len(a) > 1 && a[0] == '-' && a[1] != '-' && a[len(a)-1] == short):
			v = args[i+1]
		default:
			continue
		}
		if v == "-" {
			return ""
		}
		return v
	}
	return ""
}

// noteDownloads records the files that curl -o and wget -O save, with
// their URL.
func (pl *planner) noteDownloads(cmds []simple) {
	for _, s := range cmds {
		n := path.Base(s.name())
		if n != "curl" && n != "wget" {
			continue
		}
		args := s.args()
		url, file := "", downloadOutput(n, args)
		for _, a := range args {
			if urlRe.MatchString(a) {
				url = a
			}
		}
		if url != "" && file == "" && (n == "wget" || slices.Contains(args, "--remote-name") || hasShortFlag(args, 'O')) {
			file = path.Base(strings.SplitN(url, "?", 2)[0])
		}
		if url != "" && file != "" {
			pl.seen.downloads[strings.TrimPrefix(file, "./")] = url
		}
	}
}

// Prose that tells to download a release archive and unpack it, and prose
// that offers the repository's own checkout instead.
var (
	downloadReleaseRe = lazyre.New(`(?is)\bdownload\w*\b.{0,200}?\breleases?\b|\breleases?\b.{0,120}?\bdownload\w*\b`)
	unpackRe          = lazyre.New(`(?i)\b(unpack|extract|untar|unzip|decompress)\w*\b`)
	checkoutCueRe     = lazyre.New(`(?i)\b(clone|cloning|git|checkout|from source|source code)\b`)
)

// inReleaseFolder names the step of a command that runs in the folder of
// a release archive: the text of its section says to download a release
// and unpack it (not to clone the repository), no command that ran so far
// downloaded or unpacked anything, and the command is a build or install
// step in the current directory (`sudo make install`, `./install.sh`)
// that the checkout is not the place for. "" otherwise.
func (pl *planner) inReleaseFolder(b readme.Block, cmds []simple) string {
	sec := b.Section
	if sec == "" || !unpackRe.MatchString(sec) || !downloadReleaseRe.MatchString(sec) || checkoutCueRe.MatchString(sec) || len(pl.seen.downloads) > 0 {
		return ""
	}
	for _, s := range cmds {
		if n := path.Base(s.name()); n == "make" || strings.HasPrefix(s.script(), "./") {
			return strings.TrimSpace(s.line())
		}
	}
	return ""
}
