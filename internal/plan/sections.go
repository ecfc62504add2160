package plan

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/readme2demo/readme2demo/internal/lazyre"
	"github.com/readme2demo/readme2demo/internal/readme"
)

// What the README says around a block: its section headings and the
// sentence before it.

// troubleRe matches a section of fixes for problems a reader may have.
var troubleRe = lazyre.New(`(?i)\btroubleshoot(ing)?\b|\bknown (issues|problems)\b|\bFAQ\b|\bworkarounds?\b`)

// benchmarkRe is a section of performance measurements: a heading that
// starts with the word ("Benchmarks", "Benchmark results"), not a title
// that names a benchmarking tool.
var benchmarkRe = lazyre.New(`(?i)^\W*benchmark(s|ing)?\b`)

// section returns the innermost heading the block stands in (at any depth)
// that re matches, "" for none.
func section(hs []string, re *lazyre.Regexp) string {
	for i := len(hs) - 1; i >= 0; i-- {
		if matches(re, hs[i]) {
			return hs[i]
		}
	}
	return ""
}

// innermost is the heading a block stands right under, "" for none.
func innermost(hs []string) string {
	if len(hs) == 0 {
		return ""
	}
	return hs[len(hs)-1]
}

// upgradeRe matches a section about upgrading an installed copy.
var upgradeRe = lazyre.New(`(?i)\b(upgrad(e|ing)|updating)\b`)

// uninstallRe matches a section about removing the project.
var uninstallRe = lazyre.New(`(?i)\buninstall(ing|ation)?\b`)

var installSectionRe = lazyre.New(`(?i)\b(install(ation|ing)?|set\s*up|setting\s+up|prerequisites?|requirements|dependencies|from\s+source|build(ing)?|compil(e|ing|ation)|download(ing)?)\b`)

// isInstallSection reports a block under an install-like heading.
func (pl *planner) isInstallSection(hs []string) bool {
	return section(pl.sectionHeadings(hs), installSectionRe) != ""
}

// onlyRunsProject reports a block whose commands that run all run the
// project's own program (`pet configure` under "Multi file setup"): a use,
// which install-first order never moves ahead of the install.
func (pl *planner) onlyRunsProject(es []Entry) bool {
	runs := false
	for _, e := range es {
		if !e.Run {
			continue
		}
		ss := simples(lex(e.Command))
		if len(ss) == 0 || !pl.repo.is(path.Base(ss[0].name())) {
			return false
		}
		runs = true
	}
	return runs
}

// sectionHeadings are the headings a block stands under, those that only
// name the project blanked: the README's title "ruby-build" or "setup-envtest"
// says nothing of what the section is for, though its words would match
// an install or build section.
func (pl *planner) sectionHeadings(hs []string) []string {
	var out []string
	for i, h := range hs {
		if pl.repo.is(strings.Trim(h, " `*_#:!\"'")) {
			if out == nil {
				out = slices.Clone(hs)
			}
			out[i] = ""
		}
	}
	if out == nil {
		return hs
	}
	return out
}

// upgradeHeading returns the heading of a section about upgrading an
// installed copy that the block stands in (its own heading, or one above
// it other than the README's title and not also about installing:
// "Installing and Updating"), "" for none.
func upgradeHeading(hs []string) string {
	for i := len(hs) - 1; i >= 0; i-- {
		if (i == len(hs)-1 || i > 0 && !installSectionRe.MatchString(hs[i])) && upgradeRe.MatchString(hs[i]) && aboutUpgrading(hs[i]) {
			return hs[i]
		}
	}
	return ""
}

// upgradeObjectRe is what a heading about upgrading upgrades: the
// installed copy, a version, to the latest.
var upgradeObjectRe = lazyre.New(`(?i)\b(install(ation|ed)?|version|versions|release|latest|it|self|binary|cli)\b`)

// aboutUpgrading reports a heading about upgrading the installed project
// ("Upgrading", "Updating nvm", "Upgrade to the latest version"), not one
// about updating something of the reader's ("Updating requirements").
func aboutUpgrading(h string) bool {
	words := strings.Fields(plainText(h))
	return len(words) <= 1 || upgradeObjectRe.MatchString(h)
}

// blockCue returns the innermost heading or the last sentence before the
// block that matches re, "" when none does.
func blockCue(b readme.Block, re *lazyre.Regexp) string {
	if h := innermost(b.Headings); matches(re, plainText(h)) {
		return h
	}
	if s := lastSentence(b.Before); s != "" && len(s) <= 300 && matches(re, s) {
		return s
	}
	return ""
}

// matches is re.MatchString(s), remembered: the rules ask each of a
// README's headings and sentences the same questions for every block under
// them (the memo is emptied when it grows large).
func matches(re *lazyre.Regexp, s string) bool {
	k := matchKey{re, s}
	matchMemo.Lock()
	m, ok := matchMemo.m[k]
	matchMemo.Unlock()
	if ok {
		return m
	}
	m = re.MatchString(s)
	matchMemo.Lock()
	if len(matchMemo.m) >= 1<<14 || matchMemo.m == nil {
		matchMemo.m = make(map[matchKey]bool)
	}
	matchMemo.m[k] = m
	matchMemo.Unlock()
	return m
}

type matchKey struct {
	re *lazyre.Regexp
	s  string
}

var matchMemo struct {
	sync.Mutex
	m map[matchKey]bool
}

var (
	// interactiveCueRe is a heading or sentence that presents a command as
	// interactive: "Interactive", "an interactive menu", "Prompt for
	// input", "fuzzy matching", "Use `tab` … `enter` to confirm".
	// "Non-interactive" is not one.
	interactiveCueRe = lazyre.New(`(?i)(^|[^-\w])interactive(ly)?\b|\bprompts? (for|the user|you)\b|\bprompting (for|the user|you)\b|\bmenu\b|\bTUI\b|\bfuzzy\b|\bscroll(s|ing)? through\b|\b(use|press|hit|type) ` + "`?" + `(tab|enter|return|arrow|ctrl|space|esc)\b|\bselect (a|an|one|multiple|from)\b|\bpick (a|an|one|from)\b`)
	// packagingRe is a heading or sentence addressed to people who package
	// the project for a distribution.
	packagingRe = lazyre.New(`(?i)\bpackag(ing|ers?)\b[^.]{0,60}\b(distribution|distro)s?\b|\b(for|distribution|distro) packagers\b|\bpackaging\b[^.]{0,40}\bfor (a |your )?(linux )?(distribution|distro)`)
	// otherMachineRe is a sentence that moves to another computer.
	otherMachineRe = lazyre.New(`(?i)\bon (another|a different|the other|a second|the remote|a remote|the receiving|the sending) (computer|machine|host|server|device|pc|laptop)\b`)
	// uninstallCueRe is a sentence about removing or reinstalling the
	// project: "To remove installed files, run".
	uninstallCueRe = lazyre.New(`(?i)\b(un|re)install(ing|ation)?\b|\b(remove|removing|delete|deleting)\s+(the\s+|all\s+)?installed\b`)
)

// troubleCueRe is a sentence that introduces a fix for a problem the
// reader may have: "If you are experiencing issues with tldr, …".
// wrongCodeRe is a heading that presents code as wrong: "Gallery of bad
// code", "Anti-patterns"; wrongLabelRe a label before a block that does:
// "Don't:", "Wrong:". (A sentence that names bad code may be about what
// the project reports, and introduce a right use of it.)
var (
	wrongCodeRe  = lazyre.New(`(?i)\b(bad|incorrect|wrong|broken|buggy|unsafe|insecure|vulnerable)\s+(code|scripts?|examples?|input|quoting|usage|syntax|patterns?|practices?)\b|\banti-?patterns?\b`)
	wrongLabelRe = lazyre.New(`(?i)^\W*(wrong|bad|incorrect|don'?t|do not|avoid)(\s+(do\s+)?this)?\W*$`)
)

// releaseSectionRe is a heading of the maintainers' steps to cut a
// release: "Release process", "Releasing", "Making a release".
var releaseSectionRe = lazyre.New(`(?i)\brelease\s+(process|procedure|steps|checklist|instructions|workflow)\b|^\W*releasing\b|\b(making|cutting|creating|publishing|preparing)\s+an?\s+(new\s+)?(release|version)\b|\bhow\s+to\s+(release|publish)\b`)

// fileFormatRe is a heading about the syntax of a kind of file: ".env
// file syntax", "Config file format", "Syntax of the rc file".
var fileFormatRe = lazyre.New(`(?i)\bfiles?\s+(syntax|format)\b|\b(syntax|format)\s+of\s+(the\s+|an?\s+)?\S+\s+files?\b`)

// optionalStepRe is a sentence that offers what follows as optional:
// "Optionally you can add aliases in git", "(Optional) Set …".
var optionalStepRe = lazyre.New(`(?i)^\W*(optionally\b|\(optional\)|optional:)`)

// existingCopyCueRe is a sentence addressed to a reader who has the
// project from before: "If you have a local clone, update it by running".
var existingCopyCueRe = lazyre.New(`(?i)\bif you(?:'ve| have)? (?:already |previously )?(?:have |had )?(?:a|an|your) (?:local|existing|older|old|previous|earlier) (?:clone|checkout|copy|fork|install(?:ation)?|version)\b|\bif you (?:already|previously) (?:cloned|installed|checked out)\b`)

var troubleCueRe = lazyre.New(`(?i)\bif you(?:'re| are)? (?:experienc\w*|encounter\w*|run into|hit|see|get|have|face|facing|having)\b[^.]{0,60}\b(issues?|problems?|errors?|troubles?)\b`)

var (
	linkTargetRe = lazyre.New(`\]\([^)]*\)|<https?://[^>]*>|https?://\S+`)
	otherShellRe = lazyre.New(`(?i)\b(zsh|fish|nushell|powershell|xonsh|elvish|tcsh|csh|oh-my-zsh)\b|\.zshrc|config\.fish`)
	bashWordRe   = lazyre.New(`(?i)\bbash\b|\.bashrc|\bposix\b|\bsh\b`)
)

// plainText drops link targets and bare URLs from Markdown text, which
// would otherwise name platforms ("?arch=x86_64") that the prose does not.
func plainText(s string) string {
	if !strings.Contains(s, "](") && !strings.Contains(s, "http") { // in every match; most texts have neither
		return s
	}
	return linkTargetRe.ReplaceAllString(s, "]")
}

// proseOnly also drops code spans: `--arch` is a flag, not a platform.
func proseOnly(s string) string { return codeSpanRe.ReplaceAllString(plainText(s), " ") }

// lastSentence returns the last sentence of a paragraph, without link
// targets.
func lastSentence(s string) string {
	s = strings.TrimSpace(plainText(s))
	for _, sep := range []string{". ", "! ", "? "} {
		if i := strings.LastIndex(s, sep); i >= 0 {
			s = s[i+len(sep):]
		}
	}
	return s
}

var (
	fileIntroRe = lazyre.New(`(?i)\b(save[ds]?|saving)\b[^.]{0,40}\bas\b|\b(create|creating|write|add|adding|put|paste|place|append|insert)\b[^.]{0,60}\b(file|script|\.?bashrc|\.?zshrc|\.?profile|\.env\w*|rc)\b|\b(in|into|to) (a|the|your|this) (new |following |config(uration)? |shell |startup |rc |env )?file\b|\bfile (named|called)\b|\bwith (the following|this) contents?\b|\b(following|this|these lines|it) (to|in|into) (your|the)\b[^.]{0,40}\b(file|rc|profile|config)\b|\b(add|append|put|paste|place|insert)\b[^.]{0,60}\b(to|in|into) (your|the) ` + "`?" + `~/\.\w|\b(below|following) is (a|an|the)\b[^.]{0,40}\bfile\b|\b(example|sample)\b[^.]{0,30}\bfile\b\s*:?\s*$`)
	notFileRe   = lazyre.New(`(?i)\b(run|execute|download|install|type|enter)\b`)
	codeSpanRe  = lazyre.New("`([^`]+)`")
	bashrcRe    = lazyre.New(`(?i)\.?bashrc|\.bash_profile|~/\.profile|\bbash\b`)
	otherRcRe   = lazyre.New(`(?i)\.?zshrc|\bzsh\b|config\.fish|\bfish\b|\bnushell\b|\bpowershell\b|\$profile|\bcsh\b|\btcsh\b|\bxonsh\b|\belvish\b`)
	shellCfgRe  = lazyre.New(`(?i)\bshell('s)? (config(uration)?|startup|rc|profile|init)|\brc file|\b(startup|profile) file|\bshell config`)
	pathLikeRe  = lazyre.New(`^[~./]?[\w.-]*[./][\w./-]*$|^[A-Z][\w-]*file$|^\.[\w.-]+$`)
	rcFileRe    = lazyre.New(`(?i)rc$|profile$`) // a shell startup file's name
)

// firstNonComment is the first line that is neither blank nor a # comment.
func firstNonComment(ls []readme.Line) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l.Text); t != "" && !strings.HasPrefix(t, "# ") && t != "#" {
			return l.Text
		}
	}
	return ""
}

func firstNonBlank(ls []readme.Line) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l.Text); t != "" {
			return t
		}
	}
	return ""
}

// completionRe is a section about shell completion.
var completionRe = lazyre.New(`(?i)\b(auto-?)?complet(e|ion|ions)\b|\btab[- ]complet`)

// hardwareRe names hardware a sandbox (and a hosted runner) does not have:
// GPUs and their toolkits, accelerators, devices.
var hardwareRe = lazyre.New(`(?i)\b(android\s+devices?|gpus?|cuda|nvidia|rocm|hip|vulkan|metal|core\s*ml|opencl|npu|tpu|ascend|cann|fpga|sycl|oneapi|openvino|microphone|webcam|camera|bluetooth|arduino|raspberry\s*pi|esp32|usb\s+device|android\s+device)\b`)

// docsBuildRe is a section or sentence about building the project's own
// documentation.
var docsBuildRe = lazyre.New(`(?i)\b(build(ing)?|generat(e|ing)|mak(e|ing)|render(ing)?)\s+(the\s+)?(api\s+)?(docs|documentation|manual|man\s*pages?|website|site)\b`)
