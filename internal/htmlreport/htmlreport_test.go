package htmlreport

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

func loadLog(t testing.TB, path string) *commandlog.Log {
	t.Helper()
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	l, err := commandlog.Decode(f)
	assert.NilError(t, err)
	return l
}

func fixtureOptions(t testing.TB) Options {
	diff, err := os.ReadFile("testdata/readme.diff")
	assert.NilError(t, err)
	return Options{Readme: "README.md", Source: "command_log.json", ReadmeDiff: string(diff)}
}

func render(t testing.TB, l *commandlog.Log, o Options) string {
	t.Helper()
	var b bytes.Buffer
	assert.NilError(t, Render(&b, l, o))
	return b.String()
}

func TestGolden(t *testing.T) {
	l := loadLog(t, "testdata/failed.json")
	got := render(t, l, fixtureOptions(t))
	golden.Assert(t, got, "failed.html")
	// The same log gives the same page.
	assert.Equal(t, render(t, l, fixtureOptions(t)), got)
}

// Every hidden, bidi, tag, separator and conceal character, C1 control,
// OSC/DCS sequence and huge CSI parameter in the log reaches the page
// drawn visibly (outputs: as a terminal shows them, colours kept for the
// player): no raw C0 or C1 control and no hidden character, as text, JSON
// escape or character reference. The golden is the page without its
// stylesheet and script.
func TestHostileText(t *testing.T) {
	o := fixtureOptions(t)
	o.ReadmeDiff = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-run it\n+run it \u202e\x1b]0;t\x07 \u200b\n"
	o.Title = "title \u2066\x1b[8m"
	page := render(t, termtexttest.Log(), o)
	for _, p := range termtexttest.Problems(page, termtexttest.HTML) {
		t.Error(p)
	}
	golden.Assert(t, strings.NewReplacer(pageJS, "/* assets/player.js */", pageCSS, "/* assets/report.css */").Replace(page), "hostile-text.html")
}

// embedded is what the page's script reads.
type embedded struct {
	Meta    meta
	Events  [][2]any
	Outputs []string
}

// jsonElement returns the text of the JSON script element with this id.
func jsonElement(t *testing.T, page, id string) (string, bool) {
	t.Helper()
	open := `<script type="application/json" id="` + id + `">`
	i := strings.Index(page, open)
	if i < 0 {
		return "", false
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	assert.Assert(t, j >= 0)
	return rest[:j], true
}

// pageData extracts the JSON the page's script reads.
func pageData(t *testing.T, page string) embedded {
	t.Helper()
	var d embedded
	m, ok := jsonElement(t, page, "r2d-meta")
	assert.Assert(t, ok)
	assert.NilError(t, json.Unmarshal([]byte(m), &d.Meta))
	for c := 0; ; c++ {
		text, ok := jsonElement(t, page, "r2d-events-"+jsonNum(c))
		if !ok {
			break
		}
		var chunk [][2]any
		assert.NilError(t, json.Unmarshal([]byte(text), &chunk))
		assert.Assert(t, len(chunk) <= d.Meta.EventChunk)
		d.Events = append(d.Events, chunk...)
	}
	assert.Equal(t, len(d.Events), d.Meta.EventCount)
	for c := 0; ; c++ {
		text, ok := jsonElement(t, page, "r2d-out-"+jsonNum(c))
		if !ok {
			break
		}
		var chunk []string
		assert.NilError(t, json.Unmarshal([]byte(text), &chunk))
		assert.Assert(t, len(chunk) <= d.Meta.Chunk)
		d.Outputs = append(d.Outputs, chunk...)
	}
	return d
}

func TestEmbeddedDataRoundTrips(t *testing.T) {
	l := loadLog(t, "testdata/failed.json")
	page := render(t, l, fixtureOptions(t))
	d := pageData(t, page)
	assert.Equal(t, len(d.Outputs), len(l.Commands))
	assert.Equal(t, d.Meta.Count, len(l.Commands))
	// Outputs arrive intact (markup and all) for the script to show as text.
	assert.Equal(t, d.Outputs[2], l.Commands[2].Output)
	// One jump mark per command, in time order, inside the cast.
	assert.Equal(t, len(d.Meta.Marks), len(l.Commands))
	for i := 1; i < len(d.Meta.Marks); i++ {
		assert.Assert(t, d.Meta.Marks[i] > d.Meta.Marks[i-1])
	}
	last := d.Events[len(d.Events)-1]
	assert.Assert(t, last[0].(float64) >= d.Meta.Marks[len(d.Meta.Marks)-1])
	assert.Equal(t, last[0].(float64), d.Meta.Duration)
}

func TestOutputsAreChunked(t *testing.T) {
	page := render(t, bigLog(250), Options{})
	d := pageData(t, page)
	assert.Equal(t, len(d.Outputs), 250)
	assert.Assert(t, strings.Contains(d.Outputs[249], "line 0 of command 250"))
	_, ok := jsonElement(t, page, "r2d-out-2")
	assert.Assert(t, ok, "250 outputs in 3 chunks")
	_, ok = jsonElement(t, page, "r2d-out-3")
	assert.Assert(t, !ok)
}

// scriptTag matches the start of any script element.
var scriptTag = regexp.MustCompile(`(?i)<script[^>]*>`)

func TestInjectionIsEscaped(t *testing.T) {
	l := loadLog(t, "testdata/failed.json")
	l.Engine = "<script>alert('engine')</script>"
	v := `<img src=x onerror=alert('version')>`
	l.AgentVersion = &v
	l.Commands[0].Command = `echo "</script><script>alert('cmd')</script>"`
	l.Commands[1].Source.File = `"><svg onload=alert(1)>`
	l.Markers = append(l.Markers, commandlog.Marker{Kind: commandlog.MarkerBlocked, Text: "</li><script>alert('blocked')</script>"})
	o := fixtureOptions(t)
	o.Title = "</title><script>alert('title')</script>"
	page := render(t, l, o)

	// Only the page's own script elements: its JSON data and one script.
	tags := scriptTag.FindAllString(page, -1)
	assert.Equal(t, len(tags), 4, "%q", tags) // meta, events, one output chunk, the script
	assert.DeepEqual(t, tags[:3], []string{`<script type="application/json" id="r2d-meta">`, `<script type="application/json" id="r2d-events-0">`, `<script type="application/json" id="r2d-out-0">`})
	assert.Equal(t, tags[3], "<script>")
	assert.Equal(t, strings.Count(strings.ToLower(page), "</script"), 4)
	for _, bad := range []string{"<img", "<svg", "<!--"} {
		assert.Assert(t, !strings.Contains(page, bad), "page contains %q", bad)
	}
	// The text is still there, as text.
	for _, want := range []string{
		html.EscapeString("<script>alert('engine')</script>"),
		html.EscapeString(`"><svg onload=alert(1)>`),
		html.EscapeString("</li><script>alert('blocked')</script>"),
	} {
		assert.Assert(t, strings.Contains(page, want), "missing escaped %q", want)
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	const forwarded = "my-gateway-key-0123456789"
	const custom = "internal-hostname-xyz"
	l := loadLog(t, "testdata/failed.json")
	token := strings.TrimSpace(l.Commands[3].Output)
	l.Commands[0].Output = "using " + forwarded + " on " + custom
	l.Markers = append(l.Markers, commandlog.Marker{Kind: commandlog.MarkerFix, Text: "exported KEY=" + forwarded})
	o := fixtureOptions(t)
	o.ReadmeDiff += "+export ANTHROPIC_API_KEY=" + forwarded + "\n"
	o.Secrets = []string{forwarded}
	o.Redact = func(s string) string { return strings.ReplaceAll(s, custom, "[REDACTED:custom]") }
	page := render(t, l, o)
	for _, secret := range []string{token, forwarded, custom} {
		assert.Assert(t, !strings.Contains(page, secret), "page leaks %q", secret)
	}
	assert.Assert(t, strings.Contains(page, "[REDACTED:github]") || strings.Contains(page, "[REDACTED:"), "no redaction marker")
	assert.Assert(t, strings.Contains(page, "[REDACTED:custom]"))
	assert.Assert(t, strings.Contains(page, "[REDACTED:secret]"))
	// The caller's log is untouched.
	assert.Equal(t, strings.TrimSpace(l.Commands[3].Output), token)
}

// resourceRef matches anything that could make the page fetch something.
var resourceRef = regexp.MustCompile(`(?i)\s(src|href|srcset|action|formaction|poster|background|data|ping|manifest)\s*=|url\(|@import|<link|<iframe|<object|<embed`)

func TestPageNeedsNoNetwork(t *testing.T) {
	l := loadLog(t, "testdata/failed.json")
	page := render(t, l, fixtureOptions(t))
	// The log mentions URLs (a clone, a server address): they may appear as
	// text, but nothing on the page refers to any resource.
	assert.Assert(t, strings.Contains(page, "https://example.com/demo.git"))
	assert.Assert(t, !resourceRef.MatchString(stripData(page)), "resource reference: %q", resourceRef.FindString(stripData(page)))
	assert.Assert(t, strings.Contains(page, `content="default-src &#39;none&#39;;`), "no CSP")
}

// stripData removes the text content of the page (what the log says) so
// only markup, style and script are searched.
func stripData(page string) string {
	page = regexp.MustCompile(`(?s)<script type="application/json"[^>]*>.*?</script>`).ReplaceAllString(page, "")
	return regexp.MustCompile(`>[^<]*<`).ReplaceAllString(page, "><")
}

func TestHeader(t *testing.T) {
	cost, turns, dur := 1.5, 3, int64(65_000)
	ver := "1.0.0"
	tests := []struct {
		name     string
		log      commandlog.Log
		outcome  string
		facts    []string
		sections []string
	}{
		{name: "success with numbers", log: commandlog.Log{Engine: "codex", AgentVersion: &ver, Outcome: commandlog.OutcomeSuccess, CostUSD: &cost, Turns: &turns, DurationMS: &dur},
			outcome: "success", facts: []string{`<dd id="engine">codex</dd>`, `<dd id="agent">1.0.0</dd>`, `<dd id="cost">$1.5000</dd>`, `<dd id="turns">3</dd>`, `<dd id="duration">1m 05s</dd>`}},
		{name: "unknown numbers", log: commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed},
			outcome: "failed", facts: []string{`<dd id="agent">unknown</dd>`, `<dd id="cost">unknown</dd>`, `<dd id="turns">unknown</dd>`, `<dd id="duration">unknown</dd>`}},
		{name: "adjusted", log: commandlog.Log{Engine: "gemini", Outcome: commandlog.OutcomeSuccess, Adjusted: true, Markers: []commandlog.Marker{{Kind: commandlog.MarkerFix, Text: "used python3"}}},
			outcome: "adjusted", sections: []string{`<section id="fixes">`, "used python3"}},
		{name: "blocked", log: commandlog.Log{Engine: "openhands", Outcome: commandlog.OutcomeBlocked, Markers: []commandlog.Marker{{Kind: commandlog.MarkerBlocked, Text: "needs a database"}}},
			outcome: "blocked", sections: []string{`<section id="blocked">`, "needs a database"}},
		{name: "drift warning", log: commandlog.Log{Engine: "x", Outcome: commandlog.OutcomeFailed, ParseStats: commandlog.ParseStats{Lines: 10, Malformed: 2}},
			outcome: "failed", sections: []string{"2 malformed and 0 unknown records out of 10"}},
		{name: "sandbox", log: commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed,
			Sandbox: &commandlog.Sandbox{Profile: "dev", Network: "open", Disk: 1 << 30, Memory: 4 << 30, CPU: 2, Pids: 4096, Stopped: "disk"}},
			outcome: "failed", facts: []string{`<dd id="sandbox">dev profile · disk cap 1GiB (measured, not enforced) · memory 4GiB · 2 CPUs · 4096 processes · network open · stopped by the disk limit</dd>`}},
		{name: "key in the container", log: commandlog.Log{Engine: "openhands", Outcome: commandlog.OutcomeFailed,
			Sandbox: &commandlog.Sandbox{Profile: "dev", Network: "open", KeysInContainer: []string{"LLM_API_KEY"}, KeysWhy: "not verified"}},
			outcome: "failed", facts: []string{`<dd id="sandbox">dev profile · network open · warning: LLM_API_KEY was in the agent&#39;s environment (not verified): ` +
				`a README could read it, and only redaction kept it out of what is published</dd>`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, &tc.log, Options{})
			assert.Assert(t, strings.Contains(page, `<header class="head outcome-`+tc.outcome+`">`), "outcome")
			assert.Assert(t, strings.Contains(page, `<span class="badge" id="outcome">`+tc.outcome+`</span>`))
			for _, f := range append(tc.facts, tc.sections...) {
				assert.Assert(t, strings.Contains(page, f), "missing %q", f)
			}
			assert.Assert(t, strings.Contains(page, "The agent ran no commands."))
		})
	}
}

func TestTimelineRows(t *testing.T) {
	l := loadLog(t, "testdata/failed.json")
	page := render(t, l, fixtureOptions(t))
	for i, c := range l.Commands {
		re := regexp.MustCompile(`<li id="c` + regexp.QuoteMeta(strings.TrimSpace(itoa(i+1))) + `" class="cmd st-` + string(c.Status) + `" data-status="` + string(c.Status) + `"><details( open)?>`)
		m := re.FindStringSubmatch(page)
		assert.Assert(t, m != nil, "row %d", i+1)
		// Failed and unknown commands are expanded, ok ones collapsed.
		assert.Equal(t, m[1] == " open", c.Status != commandlog.StatusOK, "row %d open", i+1)
	}
	for _, want := range []string{
		`<span class="exit">exit 1</span> <span class="dur">1m 20s</span> <span class="src">README.md:20</span>`,
		`<span class="exit">exit code unknown</span>`,
		`<span class="trunc">output truncated</span>`,
		`<span class="sub" title="run by a sub-agent">↳</span>`,
		// A heredoc shows its first line in the row and all of it inside.
		`<code class="c">cat &lt;&lt;&#39;EOF&#39; &gt; config.yml …</code>`,
		"<pre class=\"full\">cat &lt;&lt;&#39;EOF&#39; &gt; config.yml\nport: 8080\nEOF</pre>",
		`<span class="del">-    npm start &lt;script&gt;alert(&#39;diff&#39;)&lt;/script&gt;` + "\n</span>",
		`<span class="add">&#43;    node server.js` + "\n</span>",
	} {
		assert.Assert(t, strings.Contains(page, want), "missing %q", want)
	}
}

// A command that failed because of the sandbox says which limit and what
// to change, escaped like any other text.
func TestTimelineRowNamesTheSandboxLimit(t *testing.T) {
	code := 137
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, Commands: []commandlog.Command{{
		ID: "1", Command: "python3 big.py", ExitCode: &code, Status: commandlog.StatusFailed,
		Environment: &commandlog.Environment{Kind: "oom", Detail: "the out-of-memory killer ended it: raise it with --memory <4g>"},
	}}}
	page := render(t, l, Options{})
	assert.Check(t, strings.Contains(page, `<p class="warn env">sandbox limit (oom): the out-of-memory killer ended it: raise it with --memory &lt;4g&gt;</p>`), "no sandbox note")
}

// A command the run ran otherwise than its text says shows what ran and
// how: a reader must not take the README's clone for a clone that worked.
func TestTimelineRowSaysHowItRan(t *testing.T) {
	zero := 0
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "cd tool/sub", ExitCode: &zero, Status: commandlog.StatusOK, Ran: `cd -- "$README2DEMO_CHECKOUT"/sub`},
		{ID: "2", Command: "cat app.toml", ExitCode: &zero, Status: commandlog.StatusOK, Cwd: "conf", Setup: "echo <x> > made", LeaveCwd: true},
		{ID: "3", Command: "npm start", ExitCode: &zero, Status: commandlog.StatusOK, Background: &commandlog.Background{Ready: "curl -fs localhost:3000", TimeoutS: 60}},
		{ID: "4", Command: "sudo apt install jq", ExitCode: &zero, Status: commandlog.StatusOK, Ran: "sudo apt install -y jq"},
		{ID: "5", Command: "ls", ExitCode: &zero, Status: commandlog.StatusOK},
	}}
	page := render(t, l, Options{})
	for _, want := range []string{
		`<p class="note">It ran as (README2DEMO_CHECKOUT is the checkout under test):</p><pre class="full ran">cd -- &#34;$README2DEMO_CHECKOUT&#34;/sub</pre>`,
		`<p class="note how">Ran in conf (its block&#39;s cwd hint).</p><p class="note how">After its block&#39;s setup hint: echo &lt;x&gt; &gt; made</p><p class="note how">After it, the run went back to where it was before its block&#39;s cwd hint.</p>`,
		`<p class="note how">Left running in the background; the run waited up to 60 s for curl -fs localhost:3000 to succeed.</p>`,
		`<p class="note">It ran as:</p><pre class="full ran">sudo apt install -y jq</pre>`,
	} {
		assert.Check(t, strings.Contains(page, want), "missing %s", want)
	}
	assert.Equal(t, strings.Count(page, `class="full ran"`), 2)
	assert.Equal(t, strings.Count(page, `class="note how"`), 4)
}

func itoa(i int) string { return jsonNum(i) }

func jsonNum(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestClipOutput(t *testing.T) {
	small := "short\n"
	assert.Equal(t, clipOutput(small), small)
	big := strings.Repeat("é", maxOutputBytes) // 2 bytes each
	got := clipOutput(big)
	assert.Assert(t, len(got) < maxOutputBytes+200)
	assert.Assert(t, strings.Contains(got, "bytes of output omitted from this page"))
	assert.Assert(t, !strings.ContainsRune(got, '\uFFFD'))
	head, tail, _ := strings.Cut(got, "\n[...")
	_, tail, _ = strings.Cut(tail, "]\n")
	omitted := len(big) - len(head) - len(tail)
	assert.Assert(t, strings.Contains(got, "readme2demo: "+jsonNum(omitted)+" bytes"), "honest count %d", omitted)
}
