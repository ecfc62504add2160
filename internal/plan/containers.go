package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Containers: the sandbox has no container engine, so commands that need
// one are skipped, with the lines typed inside a container they start.

// containerTools run containers; the sandbox has no container engine.
var containerTools = map[string]string{
	"docker": "Docker", "docker-compose": "Docker Compose", "podman": "Podman", "podman-compose": "Podman",
	"nerdctl": "nerdctl", "colima": "Colima", "lima": "Lima", "vagrant": "Vagrant (a VM)",
	"minikube": "minikube (Docker)", "kind": "kind (Docker)", "k3d": "k3d (Docker)",
	"kubectl": "a Kubernetes cluster", "helm": "a Kubernetes cluster", "k9s": "a Kubernetes cluster",
	"kubectx": "a Kubernetes cluster", "kubens": "a Kubernetes cluster", "oc": "an OpenShift cluster",
	"eksctl": "an AWS EKS cluster", "skaffold": "a Kubernetes cluster", "tilt": "a Kubernetes cluster",
	"argocd": "an Argo CD server", "flux": "a Kubernetes cluster", "istioctl": "a Kubernetes cluster",
	"linkerd": "a Kubernetes cluster", "kubeseal": "a Kubernetes cluster", "stern": "a Kubernetes cluster",
}

// clusterIntroRe is a README opening that presents the project as a tool
// for a Kubernetes cluster: its own commands need one.
var clusterIntroRe = lazyre.New(`(?i)\bkubernetes\b|\bkubectl\b|\bk8s\b`)

// usesContainers names the container engine a command needs: its program,
// or one it runs in $( … ) or an alias it defines ("" for none).
func usesContainers(cmds []simple) string {
	for _, s := range cmds {
		if t := containerTools[path.Base(s.name())]; t != "" {
			return t
		}
		for _, w := range s.values() {
			inner := ""
			switch {
			case strings.Contains(w, "$("):
				inner = w[strings.Index(w, "$(")+2:]
			case s.name() == "alias" && strings.Contains(w, "="):
				_, inner, _ = strings.Cut(w, "=")
			default:
				continue
			}
			for _, in := range simples(lex(strings.TrimSuffix(inner, ")"))) {
				if t := containerTools[path.Base(in.name())]; t != "" {
					return t
				}
			}
		}
	}
	return ""
}

// clientInfoOnly reports commands whose cluster clients (kubectl, helm,
// k9s) only print their version or help, and are the project itself or
// installed by an earlier line: no cluster is needed for that.
func (pl *planner) clientInfoOnly(cmds []simple) bool {
	clients := 0
	for _, s := range cmds {
		n := path.Base(s.name())
		t := containerTools[n]
		if t == "" {
			continue
		}
		if !strings.Contains(t, "cluster") || !s.onlyInfo() || !pl.repo.is(n) && pl.seen.installed[n] == 0 {
			return false
		}
		clients++
	}
	return clients > 0
}

// entersContainer reports a container command that leaves the reader
// typing inside the container: `docker run -it IMAGE` or `docker compose
// run SERVICE` with no command after the image or service, or one that is a
// shell (`docker exec -it C bash`).
func entersContainer(cmds []simple) bool {
	for _, s := range cmds {
		if containerTools[path.Base(s.name())] == "" {
			continue
		}
		args := s.args()
		compose := strings.HasSuffix(path.Base(s.name()), "-compose")
		if len(args) > 0 && args[0] == "compose" {
			args, compose = args[1:], true
		}
		if len(args) == 0 || args[0] != "run" && args[0] != "exec" {
			continue
		}
		tty := compose
		i := 1
		for ; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			switch args[i] {
			case "-it", "-ti", "-t", "--tty":
				tty = true
			}
			if dockerValueOpts[args[i]] {
				i++
			}
		}
		if !tty || i >= len(args) {
			continue
		}
		rest := args[i+1:]
		if len(rest) == 0 && args[0] == "run" || len(rest) > 0 && (rest[0] == "sh" || rest[0] == "bash" || rest[0] == "/bin/sh" || rest[0] == "/bin/bash" || rest[0] == "ash") {
			return true
		}
	}
	return false
}

// ownImage returns the image of a `docker run` (or podman) of this
// project's own image, "" otherwise.
func (pl *planner) ownImage(s simple) string {
	if n := s.name(); n != "docker" && n != "podman" {
		return ""
	}
	args := s.args()
	if len(args) == 0 || args[0] != "run" {
		return ""
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if dockerValueOpts[a] {
				i++
			}
			continue
		}
		img := strings.ToLower(a)
		if pl.seen.images[img] {
			return a
		}
		ref, _, _ := strings.Cut(img, ":")
		if i := strings.LastIndexByte(ref, '@'); i > 0 {
			ref = ref[:i]
		}
		if pl.repo.is(path.Base(ref)) || pl.seen.images[ref] || slices.ContainsFunc(pl.repo.Slugs, func(sl string) bool { return strings.HasSuffix(ref, sl) }) {
			return a
		}
		return ""
	}
	return ""
}

// ownBuild reports `docker build .` (the project's own Dockerfile) and the
// tag it gives the image.
func (pl *planner) ownBuild(s simple) (string, bool) {
	if n := s.name(); n != "docker" && n != "podman" {
		return "", false
	}
	args := s.args()
	if len(args) > 0 && args[0] == "buildx" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] != "build" {
		return "", false
	}
	tag, ctx := "", ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-t" || a == "--tag":
			if i+1 < len(args) {
				tag = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--tag="):
			tag = strings.TrimPrefix(a, "--tag=")
		case a == "-f" || a == "--file" || a == "--build-arg" || a == "--target" || a == "--platform":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			ctx = a
		}
	}
	if ctx == "." || ctx == "./" {
		return tag, true
	}
	return "", false
}

// dockerValueOpts are docker run options that take a separate value.
var dockerValueOpts = toSet(`-v --volume -e --env -p --publish -w --workdir --name -u --user --network --net --entrypoint
--mount -l --label --env-file --platform -h --hostname --add-host --cpus -m --memory --device --restart --pull
--cap-add --cap-drop --security-opt`)

// ownDockerImage skips a run or build of this project's own Docker image:
// another way to run the project, and the sandbox has no Docker. An image
// a skipped build tags is the project's too.
func ownDockerImage(pl *planner, x *cmd) (Entry, bool) {
	for _, s := range x.cmds {
		if img := pl.ownImage(s); img != "" {
			return pl.skip(x, because(KindContainer, "runs this project's Docker image %s: an alternative way to run it (the sandbox has no Docker)", img))
		}
		if tag, ok := pl.ownBuild(s); ok {
			if tag != "" {
				pl.seen.images[strings.ToLower(tag)] = true
			}
			return pl.skip(x, because(KindContainer, "builds this project's Docker image: an alternative way to run it (the sandbox has no Docker)"))
		}
	}
	return pass()
}

// clusterVerbs are the subcommands of a tool for Kubernetes that change
// or read a cluster (`arkade install openfaas`, `tool apply -f x.yaml`);
// its others (get, search, render, validate) work on this machine.
var clusterVerbs = toSet(`install uninstall deploy undeploy apply delete upgrade rollout scale port-forward logs exec attach create destroy up down`)

// clusterOpts are options that choose what part of a cluster a command
// works on.
var clusterOpts = toSet(`--namespace --kubeconfig --context --kube-context --cluster --all-namespaces`)

// actsOnCluster reports a command that names a part of a cluster by an
// option, or whose subcommand (its first argument that is not an option)
// is a cluster verb.
func actsOnCluster(s simple) bool {
	for _, a := range s.args() {
		if opt, _, _ := strings.Cut(a, "="); clusterOpts[opt] {
			return true
		}
	}
	for _, a := range s.args() {
		if !strings.HasPrefix(a, "-") {
			return clusterVerbs[a]
		}
	}
	return false
}

// containerRule skips a command that needs a container engine or a
// cluster: by its program, or because it runs the project's own program
// with a subcommand that acts on a cluster and the README presents the
// project as a tool for Kubernetes.
func containerRule(pl *planner, x *cmd) (Entry, bool) {
	if t := usesContainers(x.cmds); t != "" && !pl.clientInfoOnly(x.cmds) {
		return pl.skip(x, because(KindContainer, "needs %s: the sandbox has no container engine", t))
	}
	if pl.readme.device != "" {
		for _, s := range x.cmds {
			if pl.repo.is(path.Base(s.name())) && !s.onlyInfo() {
				return pl.skip(x, because(KindOtherPlatform, "runs %s, which the README presents as a tool for hardware the sandbox does not have (%q)", s.name(), pl.readme.device))
			}
		}
	}
	if pl.readme.cluster {
		for _, s := range x.cmds {
			if pl.repo.is(path.Base(s.name())) && !s.onlyInfo() && actsOnCluster(s) {
				return pl.skip(x, because(KindContainer, "runs %s, which the README presents as a tool for Kubernetes: it needs a cluster, and the sandbox has none", s.name()))
			}
		}
	}
	return pass()
}

// buildNeedsRe is a line of an opening that says what a build needs on one
// platform ("on Raspbian (Raspberry Pi) you need libncurses5-dev"), not
// what the project is for.
var buildNeedsRe = lazyre.New(`(?i)\b(you(\s+will|'ll)?\s+need|headers|-dev\b|-devel\b|to compile|to build)\b`)

// presentsDevice is the phrase of a README's opening that presents the
// project as a tool for hardware the sandbox does not have, "" for none.
func presentsDevice(intro string) string {
	for _, l := range strings.Split(plainText(intro), "\n") {
		if m := hardwareRe.FindString(l); m != "" && !buildNeedsRe.MatchString(l) {
			return m
		}
	}
	return ""
}
