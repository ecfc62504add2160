package sandbox

// The docs cannot drift from the profiles: what README.md's security notes
// and docs/action.md say each profile's container is, is generated from
// Traits (itself read from the container configuration each profile
// builds), and nothing else in those two files may claim a strict-only
// property without naming strict. The README once said the default
// container had no-new-privileges and a read-only root; the default is dev.

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// profileDocs are the documents that describe the profiles to users.
var profileDocs = []string{"../../README.md", "../../docs/action.md"}

const (
	traitsBegin = "<!-- profiles: generated from internal/sandbox Traits; go test ./internal/sandbox -run TestDocsDescribeProfiles -update rewrites it -->"
	traitsEnd   = "<!-- profiles: end -->"
)

// profileNotes is the generated list: what the default profile's container
// is, what every other profile changes, and what they share.
func profileNotes(t *testing.T, indent string) string {
	t.Helper()
	def, err := Traits(DefaultProfile)
	assert.NilError(t, err)
	var b strings.Builder
	var own, same []string
	others := map[string][]string{}
	for i, tr := range def {
		differs := false
		for _, p := range Profiles {
			if p == DefaultProfile {
				continue
			}
			o, err := Traits(p)
			assert.NilError(t, err)
			assert.Equal(t, o[i].Aspect, tr.Aspect, "profiles list their traits in one order")
			if o[i].Text != tr.Text {
				differs = true
				others[p] = append(others[p], o[i].Text)
			}
		}
		if differs {
			own = append(own, tr.Text)
		} else {
			same = append(same, tr.Text)
		}
	}
	fmt.Fprintf(&b, "%s- `%s`, the default: %s.\n", indent, DefaultProfile, strings.Join(own, "; "))
	for _, p := range Profiles {
		if p != DefaultProfile {
			fmt.Fprintf(&b, "%s- `%s` (`--sandbox %s`, input `sandbox: %s`) instead: %s.\n", indent, p, p, p, strings.Join(others[p], "; "))
		}
	}
	fmt.Fprintf(&b, "%s- every profile: %s.\n", indent, strings.Join(same, "; "))
	return b.String()
}

func TestDocsDescribeProfiles(t *testing.T) {
	for _, f := range profileDocs {
		src, err := os.ReadFile(f)
		assert.NilError(t, err)
		text := string(src)
		begin := strings.Index(text, traitsBegin)
		assert.Assert(t, begin >= 0, "%s has no generated profile list (%s … %s)", f, traitsBegin, traitsEnd)
		assert.Assert(t, strings.Count(text, traitsBegin) == 1, "%s: more than one profile list", f)
		lineStart := strings.LastIndexByte(text[:begin], '\n') + 1
		indent := text[lineStart:begin]
		assert.Assert(t, strings.TrimSpace(indent) == "", "%s: the marker starts its line", f)
		from := begin + len(traitsBegin) + 1
		end := strings.Index(text[from:], indent+traitsEnd)
		assert.Assert(t, end >= 0, "%s: no %q after the profile list", f, traitsEnd)
		want := profileNotes(t, indent)
		if golden.FlagUpdate() {
			text = text[:from] + want + text[from+end:]
			assert.NilError(t, os.WriteFile(f, []byte(text), 0o644))
			continue
		}
		assert.Equal(t, text[from:from+end], want, "%s: the profile list differs from the profiles (rewrite it with -update)", f)
		for _, c := range strictClaims(strings.TrimPrefix(f, "../../"), text[:begin]+text[from+end:]) {
			t.Error(c)
		}
	}
}

// strictOnly are phrases that describe the strict profile alone.
var strictOnly = []string{"read-only root", "no-new-privileges", "all capabilities dropped", "no capabilities", "no sudo"}

// strictClaims returns the paragraphs, list items and table rows of text
// that claim a strict-only property without naming strict.
func strictClaims(file, text string) []string {
	var out []string
	for _, block := range docBlocks(text) {
		low := strings.ToLower(strings.ReplaceAll(block.text, "`", ""))
		for _, p := range strictOnly {
			if strings.Contains(low, p) && !strings.Contains(low, "strict") {
				out = append(out, fmt.Sprintf("%s:%d claims %q without naming the strict profile (the default is %s): %s", file, block.line, p, DefaultProfile, block.text))
			}
		}
	}
	return out
}

// Each strict-only phrase is indeed strict's alone (where the traits say
// it in those words).
func TestStrictOnlyPhrases(t *testing.T) {
	traits := func(p string) string {
		tr, err := Traits(p)
		assert.NilError(t, err)
		var b strings.Builder
		for _, x := range tr {
			b.WriteString(strings.ToLower(strings.ReplaceAll(x.Text, "`", "")) + "\n")
		}
		return b.String()
	}
	def, strict := strings.ReplaceAll(traits(DefaultProfile), "no no-new-privileges", ""), traits(ProfileStrict)
	for _, p := range strictOnly {
		assert.Check(t, !strings.Contains(def, p), "%q is a trait of the default profile", p)
	}
	for _, p := range []string{"read-only root", "no-new-privileges", "all capabilities dropped", "no sudo"} {
		assert.Check(t, strings.Contains(strict, p), "%q is not a strict trait any more", p)
	}
}

type docBlock struct {
	line int
	text string
}

// docBlocks splits markdown into paragraphs, list items, table rows and
// headings, each with its first line number.
func docBlocks(text string) []docBlock {
	var out []docBlock
	var cur []string
	first := 0
	flush := func() {
		if len(cur) > 0 {
			out = append(out, docBlock{first, strings.Join(cur, " ")})
		}
		cur = nil
	}
	for i, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			flush()
			continue
		case strings.HasPrefix(trim, "- "), strings.HasPrefix(trim, "* "), strings.HasPrefix(trim, "|"), strings.HasPrefix(trim, "#"):
			flush()
		}
		if len(cur) == 0 {
			first = i + 1
		}
		cur = append(cur, trim)
	}
	flush()
	return out
}

// The checker finds the claim the README made about the default profile.
func TestStrictClaimsCheckerCatchesDrift(t *testing.T) {
	md := "# Notes\n\n- The container runs as a non-root user with all capabilities dropped, `no-new-privileges`, a\n  read-only root file system.\n" +
		"- `strict`: no capabilities, read-only root.\n\n| `sandbox` | `dev` | `dev` (sudo) or `strict` (no sudo) |\n"
	claim := "- The container runs as a non-root user with all capabilities dropped, `no-new-privileges`, a read-only root file system."
	assert.DeepEqual(t, strictClaims("x.md", md), []string{
		`x.md:3 claims "read-only root" without naming the strict profile (the default is dev): ` + claim,
		`x.md:3 claims "no-new-privileges" without naming the strict profile (the default is dev): ` + claim,
		`x.md:3 claims "all capabilities dropped" without naming the strict profile (the default is dev): ` + claim,
	})
}
