package plan

import (
	"strings"

	"github.com/readme2demo/readme2demo/internal/readme"
)

// The block rules decide for every candidate of a block at once, from what
// the README says around it (its section, the sentence before it, its
// hints) or from the shape of the whole block. They are tried in order;
// the first that decides wins.

// blockRule is one named rule over a whole block: it returns its decision
// and true when it decides, stop when it ends the search without deciding.
type blockRule struct {
	name   string
	decide func(pl *planner, b readme.Block, cands []candidate) (d Decision, ok, stop bool)
}

// context says what the block is for, from its hints and the text around
// it; at most one of these decides.
var contextRules = []blockRule{
	{"skip-hint", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		return because(KindHint, "skip hint"), b.Hints.Skip, false
	}},
	{"platform-hint", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		if b.Hints.Platform == "" {
			return Decision{}, false, false
		}
		name, fits := hintPlatform(b.Hints.Platform)
		return otherPlatform("%s (platform hint)", name), !fits, fits
	}},
	{"uninstall-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		return because(KindMaintenance, "uninstalls: not part of trying the README"), uninstallRe.MatchString(strings.Join(b.Headings, " ")), false
	}},
	{"upgrade-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := upgradeHeading(b.Headings)
		return because(KindMaintenance, "upgrades an earlier install (section %q): not part of trying the README", h), h != "", false
	}},
	{"benchmark-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := section(b.Headings, benchmarkRe)
		return because(KindMaintenance, "benchmark (section %q): measures performance with tools and servers of its own, not part of trying the README", h), h != "", false
	}},
	{"release-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := section(b.Headings, releaseSectionRe)
		return because(KindMaintenance, "cuts a release of the project (section %q): for its maintainers, not part of trying the README", h), h != "", false
	}},
	{"completion-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := section(b.Headings, completionRe)
		return because(KindOptional, "shell completion (section %q): an optional convenience, not part of trying the README", h), h != "", false
	}},
	{"troubleshooting-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := innermost(b.Headings)
		return because(KindOptional, "troubleshooting (section %q): only when that problem occurs", h), troubleRe.MatchString(h), false
	}},
	{"troubleshooting-text", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		s := lastSentence(b.Before)
		return because(KindOptional, "troubleshooting (the text before the block: %q): only when that problem occurs", s), troubleCueRe.MatchString(proseOnly(s)), false
	}},
	{"uninstall-text", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		return because(KindMaintenance, "uninstalls or reinstalls (the text before the block): not part of trying the README"), uninstallCueRe.MatchString(proseOnly(lastSentence(b.Before))), false
	}},
	{"optional-text", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		s := lastSentence(b.Before)
		return because(KindOptional, "optional (the text before the block: %q): not part of trying the README", s), optionalStepRe.MatchString(proseOnly(s)), false
	}},
	{"existing-copy-text", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		s := lastSentence(b.Before)
		return because(KindMaintenance, "updates an existing clone or install (the text before the block: %q): the run starts from a fresh checkout", s), existingCopyCueRe.MatchString(proseOnly(s)), false
	}},
	{"file-format-section", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := innermost(b.Headings)
		return because(KindFileContent, "the content of a file (section %q: a file's syntax or format), not commands", h), fileFormatRe.MatchString(h), false
	}},
	{"packaging", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		cue := blockCue(b, packagingRe)
		return because(KindMaintenance, "for packagers of a distribution (%q): not part of trying the README", cue), cue != "", false
	}},
	{"name-list", func(_ *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		return because(KindText, "a list of program names, not commands to run"), b.Mode != readme.ModeConsole && nameList(cands), false
	}},
	{"argument-forms", func(_ *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		if b.Mode == readme.ModeConsole {
			return Decision{}, false, false
		}
		prog := argForms(cands)
		return because(KindSynopsis, "a reference of %s's argument forms (one argument a line, nothing for them to act on), not commands to run", prog), prog != "", false
	}},
	{"command-reference", func(_ *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		if b.Mode == readme.ModeConsole {
			return Decision{}, false, false
		}
		prog := commandReference(cands)
		return because(KindText, "a reference of %s's commands (each line a command and what it does), not steps to run", prog), prog != "", false
	}},
	{"output-sample", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		s := lastSentence(b.Before)
		return because(KindOutput, "output sample (the text before the block: %q), not commands", s), b.Mode != readme.ModeConsole && outputIntroRe.MatchString(proseOnly(s)), false
	}},
	{"ini-content", func(_ *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		return because(KindFileContent, "the content of a configuration file ([section] headers and key=value lines), not commands"), b.Mode != readme.ModeConsole && iniContent(cands), false
	}},
	{"optional-settings", func(pl *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		if b.Mode == readme.ModeConsole {
			return Decision{}, false, false
		}
		names := pl.optionalSettings(b, cands)
		return because(KindOptional, "optional settings of the program (%s): example values that would change what the later commands do, not a step", names), names != "", false
	}},
	{"settings-reference", func(pl *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		return because(KindOptional, "only sets shell variables that no command reads (not exported, so no program sees them): a reference of settings and their values, not steps"), b.Mode != readme.ModeConsole && pl.settingsReference(b, cands), false
	}},
	{"documentation-build", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		h := section(b.Headings, docsBuildRe)
		if h == "" {
			h = blockCue(b, docsBuildRe)
		}
		return because(KindOptional, "builds the project's documentation (%q): not part of trying the README", h), h != "", false
	}},
	{"hardware", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		cue := blockCue(b, hardwareRe)
		if cue == "" {
			cue = section(b.Headings, hardwareRe)
		}
		return because(KindOtherPlatform, "needs hardware the sandbox does not have (%q): a GPU, an accelerator or a device", cue).with(causeSandboxLacks), cue != "", false
	}},
	{"another-machine", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		cue := blockCue(b, otherMachineRe)
		return because(KindRemote, "runs on another machine (%q): the sandbox is one machine", cue), cue != "", false
	}},
	{"platform-text", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		name, where := blockPlatform(b)
		return otherPlatform("%s (%s)", name, where), name != "", false
	}},
	{"shell-text", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		sh, where := blockShell(b)
		return because(KindOtherShell, "for %s, not bash (%s)", sh, where), sh != "", false
	}},
	{"shown-as-wrong", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		cue := section(b.Headings, wrongCodeRe)
		if s := proseOnly(lastSentence(b.Before)); cue == "" && wrongLabelRe.MatchString(s) {
			cue = s
		}
		return because(KindText, "code the README shows as wrong (%q): an example of what not to do, or of what the project finds, not commands to run", cue),
			cue != "" && !b.Hints.Run, false
	}},
}

// contentRules say what the block is when its context said nothing: a
// file the repository has, a script to save, set-up for a startup file.
var contentRules = []blockRule{
	{"shown-file", func(pl *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		f := pl.shownFile(b)
		return because(KindFileContent, "shows the repository's file %s: it is there already", f), !b.Hints.Run && f != "", false
	}},
	{"script-example", func(_ *planner, b readme.Block, _ []candidate) (Decision, bool, bool) {
		first := firstNonBlank(b.Lines)
		return because(KindFileContent, "a script shown as an example (%s): save it as a file to run it (or add the file= or run hint)", first),
			!b.Hints.Run && b.Mode != readme.ModeConsole && strings.HasPrefix(first, "#!"), false
	}},
	{"file-target", func(pl *planner, b readme.Block, cands []candidate) (Decision, bool, bool) {
		if b.Hints.Run || b.Mode == readme.ModeConsole {
			return Decision{}, false, false
		}
		switch kind, target := fileTarget(b.Before); kind {
		case "bashrc":
			if names := pl.unusedAliases(b, cands); names != "" {
				return because(KindOptional, "optional aliases (%s): no later command of the README uses them", names), true, false
			}
			return because(KindShellSetup, "shell setup for %s: run in this session, as a new shell would", target), true, false
		case "othershell":
			return because(KindOtherShell, "shell setup for %s, not bash", target), true, false
		case "file":
			return because(KindFileContent, "file content: the text before the block says to put it in %s (add the file= hint to write it)", target), true, false
		}
		return Decision{}, false, false
	}},
}

// blockDecision is the decision of the block rules for all of a block's
// candidates, nil when they decide nothing. A decision that runs
// (KindShellSetup) stands for the block's base decision.
func (pl *planner) blockDecision(b readme.Block, cands []candidate) *Decision {
	for _, rules := range [][]blockRule{contextRules, contentRules} {
		for _, r := range rules {
			d, ok, stop := r.decide(pl, b, cands)
			if ok {
				return &d
			}
			if stop {
				break
			}
		}
	}
	return nil
}
