package plan

import (
	"cmp"
	"maps"
	"path"
	"slices"
	"strings"
)

// The clone of the repository under test, the cd into it, and what a
// skipped clone takes with it: the run starts in the checkout.

// clone reports a `git clone` (or `gh repo clone`) and the URL and target
// directory it names ("" when it uses the default).
func clone(s simple) (url, dir string, ok bool) {
	args := s.args()
	switch {
	case s.name() == "git" && len(args) > 0 && args[0] == "clone":
		args = args[1:]
	case s.name() == "gh" && len(args) > 1 && args[0] == "repo" && args[1] == "clone":
		args = args[2:]
	default:
		return "", "", false
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			switch a {
			case "-b", "--branch", "--depth", "-o", "--origin", "-c", "--config", "--reference", "--separate-git-dir", "-j", "--jobs", "--filter":
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	if len(pos) == 0 {
		return "", "", false
	}
	url = pos[0]
	if len(pos) > 1 {
		dir = pos[1]
	}
	return url, dir, true
}

// repoOfURL returns the last path element of a clone URL without .git:
// "fzf" for https://github.com/junegunn/fzf.git, and the owner/name pair.
func repoOfURL(u string) (name, ownerName string) {
	u = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(u), "/"), ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at := strings.IndexByte(u, '@'); at >= 0 {
		if c := strings.IndexByte(u[at:], ':'); c >= 0 {
			u = u[:at+c] + "/" + u[at+c+1:] // git@github.com:owner/name
		}
	}
	parts := strings.Split(u, "/")
	name = strings.ToLower(parts[len(parts)-1])
	if len(parts) >= 2 {
		ownerName = strings.ToLower(parts[len(parts)-2] + "/" + parts[len(parts)-1])
	}
	return name, ownerName
}

// isCdInto reports `cd DIR` into the clone's directory.
func (pl *planner) isCdInto(s simple, dir string) bool {
	if s.name() != "cd" {
		return false
	}
	args := s.args()
	return len(args) == 1 && strings.TrimSuffix(args[0], "/") == strings.TrimSuffix(dir, "/")
}

// chainRest returns the part of an `a && b && c` line after its first
// command and any directly following commands for which skipAlso holds; ""
// when nothing is left or the line is not such a chain.
func chainRest(text string, cmds []simple, skipAlso func(simple) bool) string {
	parts := splitAndAnd(text)
	if len(parts) < 2 || len(parts) != len(cmds) {
		return ""
	}
	i := 1
	for i < len(cmds) && skipAlso(cmds[i]) {
		i++
	}
	if i >= len(parts) {
		return ""
	}
	return strings.Join(parts[i:], " && ")
}

// splitAndAnd cuts a command at top-level && (outside quotes); it returns
// nil when the command holds another operator (;, |, ||, newlines) at top
// level, since then its parts do not map one to one to simple commands.
func splitAndAnd(s string) []string {
	s = strings.ReplaceAll(s, "\\\n", " ")
	var out []string
	var cur strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
			continue
		}
		switch {
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == '&' && i+1 < len(s) && s[i+1] == '&':
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
			i++
		case c == ';' || c == '|' || c == '\n' || c == '&' || c == '(' || c == '`' || c == '$':
			return nil
		default:
			cur.WriteByte(c)
		}
	}
	out = append(out, strings.TrimSpace(cur.String()))
	return out
}

// cloneOfSelf decides a clone of this repository: into the place the run
// starts (skipped, or only the rest of its line runs), or into another
// directory, which is linked to the checkout instead (unless an earlier or
// a Debian install of the project makes it an alternative).
func cloneOfSelf(pl *planner, x *cmd) (Entry, bool) {
	url, dir, ok := clone(x.cmds[0])
	if !ok || !pl.repo.isClone(url) {
		return pass()
	}
	name, _ := repoOfURL(url)
	target := dir
	if target == "" {
		target = name
	}
	if dir != "" && dir != "." && !pl.repo.is(path.Base(dir)) && !strings.HasPrefix(dir, "-") {
		if prev := pl.installedAny(pl.repo.Names); prev > 0 {
			pl.seen.notMade[strings.TrimSuffix(dir, "/")] = x.c.line
			return pl.skip(x, because(KindAlternative, "alternative: %s line %d already installs %s", pl.file, prev, listNames(pl.repo.Names)).with(causeAlternative))
		}
		for _, t := range pl.repo.Names {
			if pl.seen.installed[t] == 0 {
				pl.seen.installed[t] = x.c.line
				pl.seen.cloned[t] = true
			}
		}
		pl.seen.mentioned[strings.TrimSuffix(strings.TrimPrefix(dir, "~/"), "/")] = true
		e := pl.entry(x.b, x.c, because(KindLinkClone, "clones this repository into %s: that directory is linked to the checkout under test instead", dir).with(causeClone))
		e.Step.LinkCheckout = dir
		e.Step.Exec = chainRest(x.c.text, x.cmds, func(simple) bool { return false })
		return e, true
	}
	rest := chainRest(x.c.text, x.cmds, func(s simple) bool { return pl.isCdInto(s, target) })
	pl.seen.cloneDirs[strings.TrimSuffix(target, "/")] = true
	if rest == "" {
		return pl.entry(x.b, x.c, because(KindCloneOfSelf, "clones this repository: the run starts in its checkout").with(causeClone)), true
	}
	if rx := (&cmd{b: x.b, c: x.c, cmds: x.cmds[1:]}); len(rx.cmds) > 0 {
		tools, self := pl.installedBy(rx)
		pl.recordInstalls(rx, tools, self) // `git clone … && cd … && make install`
	}
	e := pl.entry(x.b, x.c, because(KindCloneRest, "clones this repository: the run starts in its checkout, so only the rest of the line runs").with(causeClone))
	e.Step.Exec = rest
	return e, true
}

// inSkippedClone skips a command in the directory a skipped clone would
// have made (the first such clone in README order).
func inSkippedClone(pl *planner, x *cmd) (Entry, bool) {
	dirs := slices.SortedFunc(maps.Keys(pl.seen.notMade), func(a, b string) int {
		return cmp.Or(pl.seen.notMade[a]-pl.seen.notMade[b], strings.Compare(a, b))
	})
	for _, d := range dirs {
		if strings.Contains(x.c.text, d+"/") || strings.HasSuffix(strings.TrimSpace(firstLineOf(x.c.text)), " "+d) {
			return pl.skip(x, because(KindAlternative, "uses %s, which the clone at line %d (not run) would have made", d, pl.seen.notMade[d]))
		}
	}
	return pass()
}

// cdIntoClone skips the cd into the clone of this repository: the run
// starts in its checkout.
func cdIntoClone(pl *planner, x *cmd) (Entry, bool) {
	if len(x.cmds) != 1 || x.cmds[0].name() != "cd" {
		return pass()
	}
	args := x.cmds[0].args()
	if len(args) != 1 {
		return pass()
	}
	d := strings.TrimSuffix(args[0], "/")
	first, sub, _ := strings.Cut(d, "/")
	intoClone := pl.seen.cloneDirs[first] || pl.repo.FilesKnown() && pl.repo.is(first) && !pl.repo.hasFile(first) && !pl.seen.mentioned[first]
	if sub != "" && intoClone && pl.repo.hasFile(sub) {
		// A directory of the clone (`cd caddy/cmd/caddy`): the same
		// directory of the checkout.
		e := pl.entry(x.b, x.c, because(KindCloneRest, "enters %s of the clone of this repository: the run starts in its checkout, so it enters %s there", sub, sub).with(causeClone))
		e.Step.CheckoutDir = path.Clean(sub)
		pl.seen.cwd, pl.seen.cloneSub = e.Step.CheckoutDir, true
		return e, true
	}
	if pl.seen.cloneDirs[d] || pl.repo.FilesKnown() && pl.repo.is(first) && !pl.repo.hasFile(d) && !pl.seen.mentioned[first] {
		if pl.seen.cloneSub && sub == "" {
			// After a cd into one of its directories: back to the top.
			e := pl.entry(x.b, x.c, because(KindCloneRest, "enters the clone of this repository: the run goes back to its checkout's top directory").with(causeClone))
			e.Step.CheckoutDir = "."
			pl.seen.cwd, pl.seen.cloneSub = "", false
			return e, true
		}
		return pl.skip(x, because(KindCloneOfSelf, "enters the clone of this repository: the run already starts in its checkout"))
	}
	return pass()
}
