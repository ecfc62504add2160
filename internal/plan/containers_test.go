package plan

import (
	"testing"

	here "github.com/MakeNowJust/heredoc/v2"
)

// The sandbox has no container engine: what needs one is skipped, with
// the lines typed inside a container it would have entered.
var containerCases = []planCase{
	{
		name: "the files a skipped container reads, put in place just before it, go with it",
		readme: here.Doc(`
			# app

			~~~sh
			git clone https://github.com/acme/app-deploy
			cd app-deploy
			cp .env.example .env
			mkdir -p data
			docker compose up -d
			~~~

			~~~sh
			cp .env.example .env.test
			make test
			~~~
		`),
		repo: repoWith("acme/app", ".env.example", "Makefile"),
		want: here.Doc(`
			4 skip prepares git clone https://github.com/acme/app-deploy
			5 skip prepares cd app-deploy
			6 skip prepares cp .env.example .env
			7 skip prepares mkdir -p data
			8 skip container docker compose up -d
			12 probe command cp .env.example .env.test
			13 probe command make test
		`),
	},
	{
		name: "a cluster client that only prints its version or help needs no cluster",
		readme: here.Doc(`
			# k9s

			~~~sh
			go install github.com/derailed/k9s@latest
			k9s version
			k9s help
			k9s -n demo
			kubectl version --client
			helm --help
			~~~
		`),
		repo: repoWith("derailed/k9s", "go.mod"),
		want: here.Doc(`
			4 probe command go install github.com/derailed/k9s@latest
			5 probe command k9s version
			6 probe command k9s help
			7 skip container k9s -n demo
			8 skip container kubectl version --client
			9 skip container helm --help
		`),
	},
	{
		name: "commands that need a container engine or a cluster",
		rule: "container",
		readme: here.Doc(`
			# tool

			~~~sh
			docker run -d -p 5432:5432 postgres:16
			docker compose up -d db
			podman ps
			export DOCKER_HOST=$(docker context inspect -f '{{ .Endpoints.docker.Host }}')
			alias pg="docker run --rm -it postgres:16 psql"
			kubectl get pods
			vagrant up
			echo docker
			grep -r docker .
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			4 skip container docker run -d -p 5432:5432 postgres:16
			5 skip container docker compose up -d db
			6 skip container podman ps
			7 skip container export DOCKER_HOST=$(docker context inspect -f '{{ .Endpoints.docker.Host }}')
			8 skip container alias pg="docker run --rm -it postgres:16 psql"
			9 skip container kubectl get pods
			10 skip container vagrant up
			11 probe command echo docker
			12 probe command grep -r docker .
		`),
	},
	{
		name: "the lines typed inside a container",
		readme: here.Doc(`
			~~~sh
			docker compose run --rm tool
			tool /opt/examples/a.xml
			~~~

			~~~sh
			docker run --rm -it alpine:3 echo hi
			ls
			~~~

			~~~sh
			docker exec -it db bash
			psql -c 'select 1'
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 skip container docker compose run --rm tool
			3 skip container tool /opt/examples/a.xml
			7 skip container docker run --rm -it alpine:3 echo hi
			8 probe command ls
			12 skip container docker exec -it db bash
			13 skip container psql -c 'select 1'
		`),
	},
	{
		name: "this project's own Docker image",
		rule: "own-docker-image",
		readme: here.Doc(`
			~~~sh
			docker build -t acme/widget-img .
			docker run --rm acme/widget-img --help
			docker run --rm ghcr.io/acme/tool:latest --version
			podman run tool
			~~~
		`),
		repo: slugRepo("acme/tool"),
		want: here.Doc(`
			2 skip container docker build -t acme/widget-img .
			3 skip container docker run --rm acme/widget-img --help
			4 skip container docker run --rm ghcr.io/acme/tool:latest --version
			5 skip container podman run tool
		`),
	},
	{
		name: "a tool the README presents as one for Kubernetes: its subcommands that act on a cluster",
		readme: here.Doc(`
			# sealer

			A Kubernetes controller and tool for one-way encrypted Secrets.

			## Usage

			~~~sh
			sealer --version
			sealer get kubeseal@v0.24.0
			sealer --namespace demo install controller
			sealer apply -f sealed.yaml
			sealer < secret.json > sealed.json
			~~~
		`),
		repo: repoWith("acme/sealer", "secret.json", "sealed.yaml"),
		want: here.Doc(`
			8 probe command sealer --version
			9 probe command sealer get kubeseal@v0.24.0
			10 skip container sealer --namespace demo install controller
			11 skip container sealer apply -f sealed.yaml
			12 probe command sealer < secret.json > sealed.json
		`),
	},
	{
		name: "a tool the README presents as one for devices",
		readme: here.Doc(`
			# scrcpy

			Display and control your Android devices from your computer.

			## Usage

			~~~sh
			scrcpy --version
			scrcpy --record file.mp4
			~~~
		`),
		repo: slugRepo("genymobile/scrcpy"),
		want: here.Doc(`
			8 probe command scrcpy --version
			9 skip other-platform scrcpy --record file.mp4
		`),
	},
	{
		name: "an opening that names hardware only for what a build needs there",
		readme: here.Doc(`
			# mdp

			mdp needs the ncursesw headers to compile:

			- on Raspbian (Raspberry Pi) you need libncursesw5-dev

			Now build it:

			~~~sh
			make
			mdp --version
			mdp sample.md
			~~~
		`),
		repo: repoWith("visit1985/mdp", "Makefile", "sample.md"),
		want: here.Doc(`
			10 probe command make
			11 probe command mdp --version
			12 probe command mdp sample.md
		`),
	},
}

func TestContainers(t *testing.T) { testPlans(t, containerCases) }
