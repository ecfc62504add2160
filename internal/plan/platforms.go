package plan

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// platformWords name platforms in prose. Order matters: distributions that
// carry "Linux" in their name come before plain "linux".
var platformWords = []platformWord{
	{lazyre.New(`(?i)\b(arch(\s*linux)?|manjaro|endeavouros|aur)\b`), "Arch Linux", false},
	{lazyre.New(`(?i)\balpine(\s*linux)?\b`), "Alpine Linux", false},
	{lazyre.New(`(?i)\b(amazon|clear|kali)\s*linux\b`), "another Linux distribution", false},
	{lazyre.New(`(?i)\b(fedora|centos|rhel|red\s*hat|rocky(\s*linux)?|almalinux|alma\s*linux|oracle\s*linux)\b`), "Fedora/RHEL", false},
	{lazyre.New(`(?i)\b(open\s*suse|suse|sles)\b`), "openSUSE", false},
	{lazyre.New(`(?i)\b(gentoo|funtoo)\b`), "Gentoo", false},
	{lazyre.New(`(?i)\bvoid(\s*linux)?\b`), "Void Linux", false},
	{lazyre.New(`(?i)\bnix\s*os\b|\bnixpkgs\b|\bnix(-env|-shell)?\b`), "Nix", false},
	{lazyre.New(`(?i)\bguix\b`), "Guix", false},
	{lazyre.New(`(?i)\bsolus\b`), "Solus", false},
	{lazyre.New(`(?i)\bslackware\b`), "Slackware", false},
	{lazyre.New(`(?i)\b(free|open|net|dragonfly)\s*bsd\b|\bbsd\b`), "BSD", false},
	{lazyre.New(`(?i)\b(android|termux)\b`), "Android", false},
	{lazyre.New(`(?i)\b(mac\s*os(\s*x)?|os\s*x|osx|macintosh|darwin|apple\s*silicon|macs?|universal2|xcode|ios|ipados|watchos|tvos)\b`), "macOS", false},
	// Homebrew and Snap run on Linux too: they name a platform in a
	// heading ("Homebrew", "Snap notes") or in "installed with Homebrew",
	// not in any sentence that mentions them.
	{lazyre.New(`(?i)^\W*(homebrew|macports)\b.{0,20}$|\binstalled\b.*\b(with|via|using)\s+(homebrew|macports)\b`), "macOS (Homebrew)", false},
	{lazyre.New(`(?i)^\W*(snap|snapcraft)\b.{0,20}$|\binstalled\b.*\b(with|via|using)\s+snap\b`), "Snap", false},
	{lazyre.New(`(?i)\b(windows|win32|win64|powershell|chocolatey|scoop|winget|cmd\.exe|wsl2?|cygwin|mingw(32|64)?|msys2?|mintty|putty)\b`), "Windows", false},
	{lazyre.New(`(?i)\b(haiku|illumos|solaris|openindiana|aix|ios)\b`), "another operating system", false},
	{lazyre.New(`\bALT(\s*Linux)?\b`), "ALT Linux", false},
	// A "Docker" section or comment is the way to run it in a container:
	// the sandbox has no Docker.
	{lazyre.New(`(?i)^\W*(docker|podman)\b.{0,30}$`), "Docker (the sandbox has none)", false},
	// Processor architectures: the sandbox and GitHub's hosted runners are
	// x86-64.
	{lazyre.New(`(?i)\b(arm64|aarch64|armv[5-8]\w*|armhf|armel|ppc64(le)?|powerpc|s390x|riscv(64)?|loongarch64|mips(64)?(el)?)\b`), "another processor architecture", false},
	{lazyre.New(`(?i)\b(linux|gnu/linux|gnu|debian|ubuntu|x86[_-]64|amd64|x64|mint|pop!?_os|raspbian|raspberry\s*pi\s*os|unix|unix-like|posix)\b`), "Linux", true},
}

type platformWord struct {
	re   *lazyre.Regexp
	name string
	fits bool // fits the sandbox (Debian Linux)
}

// anyPlatformWord matches where any of platformWords does.
var anyPlatformWord = lazyre.New(func() string {
	alts := make([]string, len(platformWords))
	for i, p := range platformWords {
		alts[i] = "(?:" + p.re.String() + ")"
	}
	return strings.Join(alts, "|")
}())

// textPlatform returns the platform a short text is about: fits is true
// when it names Linux or Debian (alone or beside others: "macOS or Linux"),
// name is the other platform when it names only others, and both are zero
// when it names none.
func textPlatform(s string) (name string, fits, named bool) {
	ps := platformsNamed(s)
	if len(ps) == 0 {
		return "", false, false
	}
	if slices.ContainsFunc(ps, func(p platformWord) bool { return p.fits }) {
		return "", true, true
	}
	return ps[0].name, false, true
}

// platformCount counts the platforms a text names ("Windows, Debian,
// Fedora" names three; "Debian/Ubuntu" one, as they are one family).
func platformCount(s string) int { return len(platformsNamed(s)) }

// platformsNamed returns the platformWords a text names, in their order;
// what each matches is blanked before the next is looked for.
func platformsNamed(s string) []platformWord {
	// A heading is asked about once per block under it: the answers are
	// kept (a README's texts are few; the memo is emptied when it grows).
	platformMemo.Lock()
	ps, ok := platformMemo.m[s]
	platformMemo.Unlock()
	if ok {
		return ps
	}
	rest := strings.ReplaceAll(s, "*nix", " unix ")
	if anyPlatformWord.MatchString(rest) { // one scan, not one per platform: most texts name none
		for _, p := range platformWords {
			if p.re.MatchString(rest) {
				rest = p.re.ReplaceAllString(rest, " ")
				ps = append(ps, p)
			}
		}
	}
	platformMemo.Lock()
	if len(platformMemo.m) >= 4096 || platformMemo.m == nil {
		platformMemo.m = make(map[string][]platformWord)
	}
	platformMemo.m[s] = ps
	platformMemo.Unlock()
	return ps
}

var platformMemo struct {
	sync.Mutex
	m map[string][]platformWord
}

// hintPlatform maps the platform hint to a name.
func hintPlatform(h string) (name string, fits bool) {
	switch h {
	case "linux":
		return "", true
	case "macos":
		return "macOS", false
	case "windows":
		return "Windows", false
	}
	return "", true
}

// platformTools are package managers and installers of other platforms,
// or of tools the sandbox does not have, by command name.
var platformTools = map[string]string{
	"brew": "Homebrew", "port": "MacPorts", "choco": "Chocolatey", "cinst": "Chocolatey",
	"scoop": "Scoop", "winget": "winget", "pacman": "pacman (Arch Linux)", "yay": "yay (Arch Linux)",
	"paru": "paru (Arch Linux)", "pamac": "pamac (Manjaro)", "yum": "yum (Fedora/RHEL)", "dnf": "dnf (Fedora/RHEL)",
	"rpm-ostree": "rpm-ostree (Fedora)", "zypper": "zypper (openSUSE)", "snap": "Snap", "mise": "mise",
	"asdf": "asdf", "rtx": "rtx", "0install": "0install", "apk": "apk (Alpine Linux)",
	"xbps-install": "xbps (Void Linux)", "eopkg": "eopkg (Solus)", "pkg": "pkg (FreeBSD/Termux)",
	"pkg_add": "pkg_add (OpenBSD)", "pkgin": "pkgin (pkgsrc)", "emerge": "Portage (Gentoo)",
	"nix-env": "Nix", "nix-shell": "Nix", "nix": "Nix", "guix": "Guix", "flatpak": "Flatpak",
	"conda": "conda", "mamba": "conda (mamba)", "micromamba": "conda (micromamba)", "spack": "Spack",
	"pkgx": "pkgx", "slackpkg": "Slackware", "swupd": "Clear Linux", "opkg": "opkg", "pkgutil": "macOS",
	"installer": "macOS installer", "hdiutil": "macOS", "xcode-select": "macOS (Xcode)",
	"launchctl": "macOS (launchd)", "pbcopy": "macOS (pbcopy)", "pbpaste": "macOS (pbpaste)",
	"softwareupdate": "macOS", "mas": "Mac App Store", "add-apt-repository": "Ubuntu PPA",
	"iwr": "PowerShell", "irm": "PowerShell", "iex": "PowerShell", "setx": "Windows (cmd)",
	"msiexec": "Windows", "powershell": "PowerShell", "pwsh": "PowerShell", "cmd": "Windows (cmd)",
	"cmd.exe": "Windows (cmd)", "start": "Windows (cmd)", "wsl": "Windows (WSL)", "flox": "Flox (Nix)",
	"pacstall": "Pacstall (not in the sandbox)", "chflags": "macOS/BSD (chflags)", "vcpkg": "vcpkg (a C/C++ package manager)", "conan": "Conan (a C/C++ package manager)", "pixi": "pixi (conda)",
	"pkgman": "pkgman (Haiku)", "eselect": "Gentoo", "emaint": "Gentoo", "layman": "Gentoo", "equery": "Gentoo", "pkg_info": "BSD", "devbox": "Devbox (Nix)", "webi": "webi",
}

var (
	// psVerbNoun matches PowerShell cmdlets: Get-ChildItem, Set-ExecutionPolicy.
	psVerbNoun = lazyre.New(`^[A-Z][a-z]+-[A-Z][A-Za-z]+$`)
	// windowsPath matches C:\ and %VAR% and .\ paths.
	windowsPath = lazyre.New(`(?i)^(?:[a-z]:\\|\.\\|%[a-z_]+%)`)
)

// commandPlatform names the other platform a simple command belongs to, ""
// when it fits Linux. `docker run` of the project's own image is judged
// elsewhere (it needs the repository's names).
func commandPlatform(s simple, raw string) string {
	name := s.name()
	if name == "" {
		return ""
	}
	if strings.HasPrefix(strings.TrimSpace(raw), "$env:") || strings.HasPrefix(name, "$env:") {
		return "PowerShell"
	}
	if psVerbNoun.MatchString(name) {
		return "PowerShell"
	}
	if windowsPath.MatchString(name) || slices.Contains([]string{".exe", ".ps1", ".bat", ".cmd"}, strings.ToLower(path.Ext(name))) {
		return "Windows"
	}
	if name == "open" && len(s.argv) > 1 {
		return "macOS (open)"
	}
	if name == "defaults" && len(s.argv) > 1 && (s.argv[1].text == "write" || s.argv[1].text == "read") {
		return "macOS (defaults)"
	}
	if name == "sed" && len(s.argv) > 2 && s.argv[1].text == "-i" && s.argv[2].text == "" && s.argv[2].op == "" {
		return "macOS (BSD sed's -i '': GNU sed takes the empty word for its script)"
	}
	if name == "sudo" {
		return ""
	}
	for _, w := range s.argv[1:] {
		for prefix, p := range platformPaths {
			if strings.HasPrefix(w.text, prefix) {
				return p
			}
		}
	}
	if strings.HasPrefix(name, "./") && (path.Base(name) == "vcpkg" || path.Base(name) == "conan") {
		name = path.Base(name) // the package manager a README just bootstrapped
	}
	if name == "x" && len(s.argv) > 2 && (s.argv[1].text == "env" || s.argv[1].text == "install") {
		return "x-cmd (not in the sandbox)"
	}
	if p, ok := platformTools[name]; ok {
		// `pkg` and `port` are also ordinary words; only their install
		// forms count.
		switch name {
		case "port", "pkg", "start", "installer", "nix":
			if len(s.argv) < 2 || !pkgVerbs[s.argv[1].text] {
				return ""
			}
		case "snap":
			if len(s.argv) < 2 || !snapVerbs[s.argv[1].text] {
				return ""
			}
		}
		return p
	}
	return ""
}

// platformPaths are system paths only other distributions have: a write
// to /etc/yum.repos.d sets up Fedora's package source.
var platformPaths = map[string]string{
	"/etc/yum.repos.d": "Fedora/RHEL (yum repository)", "/etc/zypp/": "openSUSE (zypper repository)",
	"/etc/pacman.conf": "Arch Linux (pacman)", "/etc/pacman.d/": "Arch Linux (pacman)", "/etc/apk/": "Alpine Linux (apk)",
	"/opt/homebrew/": "macOS (Homebrew on Apple Silicon)", "/Applications/": "macOS", "/Library/": "macOS", "~/Library/": "macOS",
}

// snapVerbs are snap's subcommands that need snapd (`snap connect` after
// `snap install`); "snap" alone is also an ordinary word.
var snapVerbs = toSet(`install connect disconnect refresh run alias set get start stop restart services remove info list`)

// pkgVerbs are the subcommands that make port, pkg, start, installer and
// nix install forms.
var pkgVerbs = toSet(`install add selfupdate upgrade -S profile env run shell -pkg -target`)

// blockPlatform names the other platform a block is for, from its hint,
// its headings (innermost first), or the last sentence before it; "" when
// it fits Linux or says nothing.
func blockPlatform(b readme.Block) (name, where string) {
	if n := laterRelease(b.Headings); n != "" {
		return n, "the section"
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 {
		if n := laterRelease([]string{s}); n != "" {
			return n, "the text before the block"
		}
	}
	for i := len(b.Headings) - 1; i >= 0; i-- {
		h := proseOnly(b.Headings[i])
		if n, fits, named := textPlatform(h); named {
			if fits && platformCount(h) > 1 {
				// A section for several platforms ("Windows, Debian,
				// Fedora instructions"): the label before the block says
				// which one it is.
				if s := lastSentence(b.Before); s != "" && len(s) <= 80 {
					if n, fits, named := textPlatform(proseOnly(s)); named && !fits {
						return n, "the text before the block"
					}
				}
			}
			if fits {
				return "", ""
			}
			return n, fmt.Sprintf("section %q", b.Headings[i])
		}
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 {
		if n, fits, named := textPlatform(proseOnly(s)); named && !fits {
			return n, "the text before the block"
		}
	}
	return "", ""
}

// Releases the plan runs on: the sandbox is Debian 12, GitHub's
// `ubuntu-latest` runner Ubuntu 24.04.
var ourReleases = map[string]float64{"debian": 12, "ubuntu": 24.04}

var (
	// releaseRe is a Debian or Ubuntu release by its number.
	releaseRe = lazyre.New(`(?i)\b(debian|ubuntu)\s+(\d+(?:\.\d+)?)\b`)
	// laterRe follows a release that is the oldest the text is for:
	// "Debian 13 "Trixie", and later", "Ubuntu 25.10+".
	laterRe = lazyre.New(`(?i)^(?:\+|[^.;:\n]{0,40}?\b(?:and|or)\s+(?:later|newer|above|higher)\b)`)
)

// laterRelease names the releases texts are for when every Debian or
// Ubuntu release they name is the oldest of a range that starts after
// ours ("For Debian 13 and later, or Ubuntu 25.10 and later": an apt
// package that Debian 12 and Ubuntu 24.04 do not have); "" otherwise.
func laterRelease(texts []string) string {
	var names []string
	for _, t := range texts {
		t = proseOnly(t)
		for _, m := range releaseRe.FindAllStringSubmatchIndex(t, -1) {
			distro, v := strings.ToLower(t[m[2]:m[3]]), t[m[4]:m[5]]
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || !laterRe.MatchString(t[m[1]:]) || n <= ourReleases[distro] {
				return "" // a release we have, or one named without a range
			}
			names = append(names, t[m[2]:m[3]]+" "+v)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "a later release (" + strings.Join(names, ", ") + " and later; the sandbox is Debian 12, GitHub's runners Ubuntu 24.04)"
}

// blockShell names the other shell (zsh, fish, …) a block is for, by its
// innermost heading or the sentence before it, "" when none or when bash is
// named too.
func blockShell(b readme.Block) (string, string) {
	for i := len(b.Headings) - 1; i >= 0; i-- {
		h := plainText(b.Headings[i])
		if m := otherShellRe.FindString(h); m != "" && !bashWordRe.MatchString(h) {
			return m, fmt.Sprintf("section %q", b.Headings[i])
		}
		if bashWordRe.MatchString(h) {
			return "", ""
		}
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 {
		if m := otherShellRe.FindString(s); m != "" && !bashWordRe.MatchString(s) {
			return m, "the text before the block"
		}
	}
	return "", ""
}

// shellNames are shells other than bash, by the name tools take as an
// argument (`zoxide init zsh`, `tool completion fish`).
var shellNames = map[string]string{"zsh": "zsh", "fish": "fish", "powershell": "PowerShell", "pwsh": "PowerShell",
	"elvish": "Elvish", "nushell": "Nushell", "nu": "Nushell", "tcsh": "tcsh", "csh": "csh", "xonsh": "xonsh", "ksh": "ksh"}

// forShell names the other shell a command is for: one of its arguments
// is that shell's name (`fd --gen-completions zsh`), "" for none.
func forShell(cmds []simple) string {
	for _, s := range cmds {
		if shellNames[path.Base(s.name())] != "" || shellWords[s.name()] || s.name() == "printf" {
			continue // running that shell is judged elsewhere; echo zsh prints a word
		}
		for _, a := range s.args() {
			if n := shellNames[a]; n != "" {
				return n
			}
		}
	}
	return ""
}

// zshBuiltins are builtins zsh has and bash does not.
var zshBuiltins = toSet(`setopt unsetopt autoload zle bindkey compdef zstyle zmodload`)

// zshFlagsRe is a zsh parameter expansion with flags: ${(%):-%n}, ${(eq+)PROMPT}.
var zshFlagsRe = lazyre.New(`\$\{\([^)]*\)`)

// zshSyntax names what in a command is zsh's alone (its builtins, print
// with options, a parameter expansion's flags), "" for none.
func zshSyntax(cmds []simple, text string) string {
	for _, s := range cmds {
		n, args := s.name(), s.args()
		if zshBuiltins[n] || n == "print" && len(args) > 0 && strings.HasPrefix(args[0], "-") {
			return n
		}
	}
	if m := zshFlagsRe.FindString(text); m != "" {
		return m + "…}"
	}
	return ""
}

// zshProjectRe is an opening that presents the project as made for zsh:
// "Powerlevel10k is a theme for Zsh", "a zsh plugin".
var zshProjectRe = lazyre.New(`(?i)\b(theme|plugin|framework|prompt|completions?)\s+(for|of)\s+zsh\b|\bzsh\s+(theme|plugin|framework|prompt)s?\b`)

// otherRcWriteRe is a redirection into another shell's startup file.
var otherRcWriteRe = lazyre.New(`>>?\s*\S*(\.zshrc|\.zshenv|\.zprofile|config\.fish|\.tcshrc|\.cshrc)\b`)

// platformTool skips a command of another platform's tool or syntax (brew,
// choco, PowerShell), unless the platform hint says the block is for Linux.
func platformTool(pl *planner, x *cmd) (Entry, bool) {
	if x.b.Hints.Platform == "linux" {
		return pass()
	}
	for _, s := range x.cmds {
		if pl.repo.is(path.Base(s.name())) {
			continue // the project's own program: what the README is about
		}
		if p := commandPlatform(s, x.c.text); p != "" {
			d := otherPlatform("%s", p)
			if p == "Ubuntu PPA" {
				d = d.with(causePackageSource)
			}
			return pl.skip(x, d)
		}
	}
	return pass()
}

// platformComment skips a command whose comment on its line names another
// platform (`ncu "/x/" # windows`).
func platformComment(pl *planner, x *cmd) (Entry, bool) {
	if tc := trailingComment(firstLineOf(x.c.text)); tc != "" && x.b.Hints.Platform == "" {
		if n, _, named := textPlatform(tc); named && n != "" {
			return pl.skip(x, otherPlatform("%s (the comment on its line)", n))
		}
	}
	return pass()
}

// commentAbove skips a command whose comment lines above it name another
// platform or another shell.
func commentAbove(pl *planner, x *cmd) (Entry, bool) {
	c := x.c.comment
	if c == "" || x.b.Hints.Platform != "" {
		return pass()
	}
	if n, _, named := textPlatform(c); named && n != "" && !pl.handlesRunOutput(x) {
		return pl.skip(x, otherPlatform("%s (the comment above it)", n))
	}
	if m := otherShellRe.FindString(c); m != "" && !bashWordRe.MatchString(c) {
		return pl.skip(x, because(KindOtherShell, "for %s, not bash (the comment above it)", m))
	}
	return pass()
}

// handlesRunOutput reports a command that only handles (moves, copies,
// links, marks executable, checksums: fileOperandProgs) a file a line that
// runs wrote (`chmod +x ./kind` after the one download of several that
// fits this machine): it goes with that line whatever platform the
// comment above names.
func (pl *planner) handlesRunOutput(x *cmd) bool {
	for _, s := range x.cmds {
		if !fileOperandProgs[path.Base(s.name())] {
			return false
		}
		uses := false
		for _, a := range s.args() {
			uses = uses || !strings.HasPrefix(a, "-") && pl.seen.mentioned[cleanPath(a)]
		}
		if !uses {
			return false
		}
	}
	return len(x.cmds) > 0
}

// otherShellRule skips what is for another shell: a completion or init
// for zsh or fish, a write to its startup file, a run with that shell.
func otherShellRule(pl *planner, x *cmd) (Entry, bool) {
	if sh := forShell(x.head); sh != "" {
		return pl.skip(x, because(KindOtherShell, "for %s, not bash", sh))
	}
	if z := zshSyntax(x.cmds, x.c.text); z != "" {
		return pl.skip(x, because(KindOtherShell, "zsh syntax (%s), not bash", z))
	}
	if x.b.Lang == "zsh" && pl.readme.zshProject != "" {
		return pl.skip(x, because(KindOtherShell, "for zsh, not bash: a zsh block of a README that presents the project so (%q)", pl.readme.zshProject))
	}
	if m := otherRcWriteRe.FindString(x.c.text); m != "" {
		return pl.skip(x, because(KindOtherShell, "for another shell: it writes to %s", strings.TrimSpace(strings.TrimLeft(m, ">"))))
	}
	if n := path.Base(x.head[0].name()); shellNames[n] != "" && len(x.head[0].args()) > 0 && pl.seen.installed[n] == 0 {
		sh := shellNames[n]
		return pl.skip(x, because(KindOtherShell, "runs it with %s, another shell (the README tries it with bash too, or the sandbox has no %s)", sh, sh))
	}
	return pass()
}
