package envcause

import (
	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// runnerTools are programs that GitHub's hosted Ubuntu runner
// (ubuntu-24.04, `ubuntu-latest`) has on its PATH, as its image's list of
// installed software says (actions/runner-images,
// images/ubuntu/Ubuntu2404-Readme.md at 05d68bc, image 20250907.24.1),
// that a README may call without installing them. When one is not found
// in the sandbox, the README would find it on a runner: the gap is the
// sandbox image's, not the README's (MissingTool). Programs with a limit of
// their own are not here: docker and podman (NoDocker), systemctl
// (NoSystemd), the browsers (NoDisplay).
var runnerTools = map[string]bool{
	// Languages and runtimes.
	"clang": true, "clang++": true, "clang-format": true, "clang-tidy": true, "gfortran": true,
	"julia": true, "kotlin": true, "kotlinc": true, "swift": true, "swiftc": true,
	"java": true, "javac": true, "jar": true, "jshell": true,
	"php": true, "composer": true, "phpunit": true,
	"dotnet": true,
	"ghc":    true, "ghci": true, "runghc": true, "cabal": true, "stack": true, "ghcup": true,
	"rustup": true,
	// Package and project managers.
	"mvn": true, "gradle": true, "ant": true, "yarn": true, "lerna": true, "vcpkg": true, "cpan": true,
	"bazel": true, "bazelisk": true, "ninja": true,
	// Tools.
	"ansible": true, "ansible-playbook": true, "ansible-galaxy": true, "buildah": true, "skopeo": true,
	"fastlane": true, "git-lfs": true, "hg": true, "kustomize": true, "mediainfo": true, "newman": true,
	"packer": true, "parcel": true, "pulumi": true, "yamllint": true, "yq": true, "zstd": true,
	"aws": true, "sam": true, "az": true, "gh": true, "gcloud": true, "pwsh": true,
	"sqlite3": true, "psql": true, "mysql": true, "shellcheck": true, "upx": true, "swig": true,
	"tree": true, "zip": true, "rsync": true, "sshpass": true, "parallel": true, "pigz": true,
	"lz4": true, "aria2c": true, "rpm": true, "patchelf": true, "bison": true, "flex": true,
	"libtoolize": true, "pkg-config": true, "xvfb-run": true, "makeinfo": true, "brotli": true,
	"7z": true, "dig": true, "nslookup": true, "telnet": true, "ftp": true, "nc": true, "netstat": true,
	"ifconfig": true, "fakeroot": true, "file": true,
}

// OnRunner reports whether GitHub's hosted Ubuntu runner has a program
// on its PATH that the sandbox image may lack (runnerTools).
func OnRunner(program string) bool { return runnerTools[program] }

// notFoundRe is a shell's or a launcher's message for a program it did not
// find: bash's "X: command not found", dash's "X: not found", sudo's and
// env's.
var notFoundRe = lazyre.New(`(?m)(?:^|: )([\w.+-]+): (?:command )?not found$|^env: '([\w.+-]+)': No such file or directory$`)

// NotFound returns the programs an output says a shell or a launcher did
// not find ("just: command not found"), in order.
func NotFound(out string) []string { return notFoundRe.Groups(out) }

// missingRunnerTool returns the first program the output says was not
// found that a GitHub-hosted Ubuntu runner has; "" for none.
func missingRunnerTool(out string) string {
	for _, p := range NotFound(out) {
		if runnerTools[p] {
			return p
		}
	}
	return ""
}
