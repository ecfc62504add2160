package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/shell"
)

// A failure that comes from the network says so, naming the host.
func TestNetworkNote(t *testing.T) {
	for out, want := range map[string]string{
		"curl: (6) Could not resolve host: raw.githubusercontent.com\n":                            "could not reach raw.githubusercontent.com",
		"fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com\n":  "could not reach github.com",
		"go: module x: reading https://proxy.golang.org/x/@v/list: 403 Forbidden\n":                "could not reach proxy.golang.org",
		"npm error getaddrinfo ENOTFOUND registry.npmjs.org\n":                                     "could not reach registry.npmjs.org",
		"wget: unable to resolve host address 'example.org'\n":                                     "could not reach example.org",
		"Err:1 http://deb.debian.org bookworm InRelease\n  Temporary failure in name resolution\n": "could not reach the network",
		"make: *** [Makefile:3: all] Error 1\n":                                                    "",
	} {
		got := networkNote(out, "make", nil)
		if want == "" {
			assert.Equal(t, got, "", out)
			continue
		}
		assert.Assert(t, strings.Contains(got, want), "%q: %q", out, got)
	}
}

// Quiet downloads fail by their exit code alone.
func TestNetworkNoteByExitCode(t *testing.T) {
	four, six, one := 4, 6, 1
	assert.Assert(t, strings.Contains(networkNote("", "sudo wget -q https://apt.example.org/key.gpg -O /etc/apt/k.gpg", &four), "could not reach apt.example.org"))
	assert.Assert(t, strings.Contains(networkNote("", "curl -s https://get.example.org | bash", &six), "could not reach get.example.org"))
	assert.Equal(t, networkNote("", "curl -s https://get.example.org | bash", &one), "")
	assert.Equal(t, networkNote("", "make", &four), "")
	two := 2
	wgetTar := `wget -qO- "https://github.com/acme/tool/releases/download/v1/tool.tar.xz" | tar -xJv`
	assert.Assert(t, strings.Contains(networkNote("", wgetTar, &two, 4, 2), "could not reach github.com"), "the download's own status in its pipeline")
	assert.Equal(t, networkNote("", wgetTar, &two, 0, 2), "")
}

// Resolver failures of pip (Python), cargo and the Go command name the
// network, with the host where the message gives one.
func TestNetworkNoteMoreTools(t *testing.T) {
	for out, want := range map[string]string{
		"WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')': /simple/icdiff/\nERROR: No matching distribution found for icdiff\n": "could not reach the network",
		"pip._vendor.urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/x/\n":                                                                                                                                                              "could not reach pypi.org",
		"error: failed to resolve address for index.crates.io: Name or service not known\n":                                                                                                                                                                                                                      "could not reach index.crates.io",
		"[ERROR] Could not transfer artifact x from/to central (https://repo.maven.apache.org/maven2): java.net.UnknownHostException: repo.maven.apache.org\n":                                                                                                                                                   "could not reach repo.maven.apache.org",
		"Could not reach host index.rubygems.org. Check your network connection and try again.\n":                                                                                                                                                                                                                "could not reach index.rubygems.org",
		"Got socket error trying to find package http at https://pub.dev.\nFailed host lookup: 'pub.dev'\n":                                                                                                                                                                                                      "could not reach pub.dev",
		"  Resource temporarily unavailable (api.nuget.org:443)\n":                                                                                                                                                                                                                                               "could not reach api.nuget.org",
		"go: downloading x: dial tcp: lookup proxy.example.org on 10.0.0.2:53: no such host\n":                                                                                                                                                                                                                   "could not reach proxy.example.org",
	} {
		got := networkNote(out, "pip install icdiff", nil)
		assert.Assert(t, strings.Contains(got, want), "%q: %q", out, got)
	}
}

// A resolver message without a host is followed by one with it (wget), or
// the command names the one host it downloads from.
func TestNetworkNoteFindsTheHost(t *testing.T) {
	out := "Resolving github.com (github.com)... failed: Name or service not known.\nwget: unable to resolve host address ‘github.com’\n"
	assert.Assert(t, strings.Contains(networkNote(out, "wget https://github.com/x/y.deb", nil), "could not reach github.com"))
	pip := "Failed to establish a new connection: [Errno -2] Name or service not known\n"
	assert.Assert(t, strings.Contains(networkNote(pip, "pip install x", nil), "could not reach the network"))
	assert.Assert(t, strings.Contains(networkNote(pip, "curl -sSL https://get.example.org/i.sh | sh", nil), "could not reach get.example.org"))
	assert.Assert(t, strings.Contains(networkNote(pip, "curl https://a.example.org/x https://b.example.org/y", nil), "could not reach the network"))
}

// The runner's bash matcher and the rules the docs state agree on a table
// of cases: "..." matches any number of lines, trailing white space and
// trailing blank lines do not count.
func TestRunnerOutputMatcher(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expect, output string
		match          bool
	}{
		{"a\nb", "a\nb\n", true},
		{"a\nb", "a  \nb\t\n\n\n", true},
		{"a\nb", "a\nc\n", false},
		{"a\n...\nd", "a\nb\nc\nd\n", true},
		{"a\n...\nd", "a\nd\n", true},
		{"...", "", true},
		{"...\nz", "a\nb\n", false},
		{"a\n...\nb\n...\nc", "a\nx\nb\ny\nb\nc\n", true},
		{"a", "", false},
		{"", "", true},
		{" a", "a\n", false},
	}
	// One bash runs every case, as the runner calls the matcher once per
	// command in one session, and prints "case status" for each.
	dir := t.TempDir()
	script := "__r2d_transcript=/dev/null __r2d_workspace=/ __r2d_work=" + filepath.Join(dir, "w") + "\n" +
		"eval \"$(sed -n '/^__r2d_matches() {/,/^}/p' " + shell.Quote(filepath.Join(".", "runner.sh")) + ")\"\n"
	for i, tt := range tests {
		out := filepath.Join(dir, strconv.Itoa(i))
		assert.NilError(t, os.WriteFile(out, []byte(tt.output), 0o644))
		script += "declare -A __r2d_step=([expect]=" + shell.Quote(tt.expect) + "); __r2d_out=" + shell.Quote(out) + "\n__r2d_matches; echo " + strconv.Itoa(i) + " $?\n"
	}
	got, err := exec.Command("bash", "-c", script).Output()
	assert.NilError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
	assert.Equal(t, len(lines), len(tests), "%s", got)
	for i, tt := range tests {
		assert.Equal(t, lines[i] == strconv.Itoa(i)+" 0", tt.match, "expect %q output %q: %s", tt.expect, tt.output, lines[i])
	}
}

// What a build lacks, matched with the prerequisites the README names in
// its text.
func TestNamedPrerequisite(t *testing.T) {
	tests := []struct {
		name, output string
		prereqs      []string
		want         string
	}{
		{"configure names a library", "checking for library containing uc_width... no\nconfigure: error: libunistring required to build\n",
			[]string{"libpcre2", "libunistring", "sqlite"}, "libunistring"},
		{"a header, a package of its own name", "src/ui.c:20:10: fatal error: curses.h: No such file or directory\n",
			[]string{"pkg-config", "libncursesw5-dev", "iconv"}, "curses.h"},
		{"configure's _LIBS check", "checking for NCURSES_LIBS (-lncurses)... no\nconfigure failed.\n",
			[]string{"ncurses"}, "NCURSES"},
		{"pkg-config", "Package libpcre2-8 was not found in the pkg-config search path.\n", []string{"pcre2"}, "libpcre2-8"},
		{"not named in the text", "configure: error: libunistring required to build\n", []string{"sqlite", "zlib"}, ""},
		{"no text", "configure: error: libunistring required to build\n", nil, ""},
		{"too short to tell", "configure: error: C compiler cannot create executables\n", []string{"clang", "gcc"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, namedPrerequisite(tc.output, tc.prereqs), tc.want)
		})
	}
}
