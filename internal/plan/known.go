package plan

import "strings"

// knownCommands are programs an unlabelled block may start with for it to
// count as a block of commands (besides paths, the project's own names and
// tools the README installed earlier).
var knownCommands = toSet(`
apt apt-get aptitude dpkg sudo doas su sh bash zsh dash fish env export source cd ls ll la cat echo printf
mkdir rmdir rm cp mv ln touch chmod chown chgrp find grep egrep fgrep rg ag ack sed awk gawk sort uniq
head tail wc cut tr tee xargs diff patch tar gzip gunzip zip unzip xz bzip2 7z curl wget ssh scp rsync
git gh hub make cmake ninja meson autoreconf autoconf automake ./configure configure gcc g++ cc clang
clang++ ld go gofmt cargo rustc rustup rustfmt npm npx yarn pnpm node deno bun corepack nvm n volta
python python3 pip pip3 pipx uv poetry pdm hatch virtualenv venv tox nox pytest ruby gem bundle bundler
rake rails irb jekyll java javac jar mvn mvnw gradle gradlew kotlin kotlinc sbt scala lein clojure clj
dotnet mono php composer perl cpan cpanm lua luarocks swift swiftc xcodebuild flutter dart elixir mix iex
erl rebar3 ghc ghci cabal stack stack opam ocaml dune zig nim nimble crystal shards julia r Rscript
docker podman docker-compose kubectl helm minikube kind k3d terraform ansible ansible-playbook vagrant
aws gcloud az heroku fly flyctl vercel netlify systemctl service journalctl which type command test
true false sleep kill pkill ps top htop watch time date env printenv set unset alias eval exec exit
wait jobs man less more vim vi nano emacs code open xdg-open direnv asdf mise brew pyenv rbenv
jq yq fzf bat fd tmux screen htop nc netcat telnet ping dig nslookup host openssl gpg base64 sha256sum
md5sum shasum install ln file stat du df free uname whoami id hostname pwd realpath dirname basename
mktemp readlink seq yes tput clear history export shellcheck shfmt bats hugo
`)

// toSet is the set of the white-space separated words of s.
func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
