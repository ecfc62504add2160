package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
	"gotest.tools/v3/assert"
)

// System package steps run as a person runs them: with sudo where the
// README leaves it out, -y where apt would ask; an installer piped from
// curl fails when the download does. The plan keeps the command as
// written and runs the adjusted one (Exec).
var sudoCases = []planCase{
	{
		name: "apt, dpkg and make install as a person runs them",
		readme: here.Doc(`
			~~~sh
			apt install git-quick-stats
			sudo apt install bat
			apt-get update
			make install
			wget https://dl.acme.dev/jq_1.0_amd64.deb
			dpkg -i jq_1.0_amd64.deb
			apt list --installed
			sudo apt-get install -y jq
			curl -fsSL https://dl.acme.dev/install.sh | sh
			curl -s https://dl.acme.dev/x.txt | grep x
			~~~
		`),
		repo: repoWith("acme/tool", "Makefile"),
		want: here.Doc(`
			2 probe command apt install git-quick-stats
			3 probe command sudo apt install bat
			4 probe command apt-get update
			5 probe command make install
			6 probe command wget https://dl.acme.dev/jq_1.0_amd64.deb
			7 probe command dpkg -i jq_1.0_amd64.deb
			8 probe command apt list --installed
			9 skip alternative sudo apt-get install -y jq
			10 probe command curl -fsSL https://dl.acme.dev/install.sh | sh
			11 probe command curl -s https://dl.acme.dev/x.txt | grep x
		`),
	},
}

func TestSudo(t *testing.T) { testPlans(t, sudoCases) }

func TestExecAsAPersonWould(t *testing.T) {
	p := Make([]byte(sudoCases[0].readme), Options{Repo: sudoCases[0].repo})
	exec := map[int]string{}
	for _, e := range p.Entries {
		exec[e.Line] = e.Exec("/workspace")
	}
	assert.DeepEqual(t, exec, map[int]string{
		2:  `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'apt install git-quick-stats -y'; else` + "\napt install git-quick-stats -y\nfi",
		3:  "sudo apt install bat -y",
		4:  `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'apt-get update'; else` + "\napt-get update\nfi",
		5:  `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'make install'; else` + "\nmake install\nfi",
		6:  "wget https://dl.acme.dev/jq_1.0_amd64.deb",
		7:  `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'dpkg -i jq_1.0_amd64.deb'; else` + "\ndpkg -i jq_1.0_amd64.deb\nfi",
		8:  "apt list --installed",
		9:  "sudo apt-get install -y jq",
		10: "(set -o pipefail\ncurl -fsSL https://dl.acme.dev/install.sh | sh\n)",
		11: "curl -s https://dl.acme.dev/x.txt | grep x",
	})

	// An install into the reader's own directories needs no root.
	p = Make([]byte("~~~sh\nmake PREFIX=~/.local install\n~~~\n"), Options{Repo: repoWith("acme/tool", "Makefile")})
	assert.Equal(t, planText(p), "2 probe command make PREFIX=~/.local install\n")
	assert.Equal(t, p.Entries[0].Exec("/workspace"), "make PREFIX=~/.local install")

	// "[sudo]": sudo where the reader needs it.
	p = Make([]byte("~~~bash\n[sudo] npm install forever -g\n~~~\n"), Options{Repo: slugRepo("foreversd/forever")})
	assert.Equal(t, planText(p), "2 probe command [sudo] npm install forever -g\n")
	assert.Equal(t, p.Entries[0].Exec("/workspace"), asRoot("npm install forever -g"))

	// Nor does a make install whose recipe is the Go command's: with
	// sudo it would install into root's GOPATH, off the reader's PATH.
	for _, tc := range []struct{ makefile, exec string }{
		{".PHONY: install build\n\ninstall: main.go\n\tgo install\n\nbuild:\n\tgo build\n", "make install"},
		{"GO ?= go\ninstall:\n\t@$(GO) install ./cmd/tool\n", "make install"},
		{"install:\n\tgo build -o tool\n\tinstall -m 755 tool /usr/local/bin/tool\n", `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'make install'; else` + "\nmake install\nfi"},
		{"build:\n\tgo install\ninstall:\n\tcp tool $(PREFIX)/bin\n", `if [ "$(id -u)" != 0 ] && sudo -n true 2>/dev/null; then sudo env "PATH=$PATH" bash -c 'make install'; else` + "\nmake install\nfi"},
	} {
		p = Make([]byte("~~~sh\nmake install\n~~~\n"), Options{Repo: archiveRepo("-- Makefile --\n" + tc.makefile + "-- main.go --\npackage main\n-- go.mod --\nmodule example.com/acme/tool\n")})
		assert.Equal(t, p.Entries[0].Exec("/workspace"), tc.exec, tc.makefile)
	}
}
