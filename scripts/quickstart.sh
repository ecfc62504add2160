#!/usr/bin/env bash
# quickstart.sh — the main job on the built-in example, with no API key:
# runs the keyless markdown engine against testdata/sample-repo in a fresh,
# locked-down container and prints the report. The sample README has one
# deliberately broken step (README.md line 24), which the run must find.
#
# On a fresh machine it sets up what it needs, saying what it does:
#   - no Docker daemon: as root, installs Debian's docker.io when missing and
#     starts dockerd (scripts/docker-up.sh); as another user, stops with the
#     exact command to run;
#   - no sandbox image: builds it once (`docker build images/base` where a
#     registry is reachable, else scripts/build-test-image.sh from a local
#     Debian base, which needs root);
#   - Go: the one in PATH, else /usr/local/go/bin/go.
#
# Env: IMAGE (default readme2demo-base:test), OUT (default readme2demo-out).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

IMAGE="${IMAGE:-readme2demo-base:test}"
OUT="${OUT:-readme2demo-out}"
start=$SECONDS
say() { printf 'quickstart [%3ds]: %s\n' "$((SECONDS - start))" "$*" >&2; }

if command -v go >/dev/null 2>&1; then
	go=go
elif [ -x /usr/local/go/bin/go ]; then
	go=/usr/local/go/bin/go
else
	say "Go is not installed: install Go 1.26 or newer (https://go.dev/doc/install), then run this again."
	exit 2
fi

if ! docker info >/dev/null 2>&1; then
	if [ "$(id -u)" -eq 0 ]; then
		say "no Docker daemon answers: starting one (scripts/docker-up.sh installs docker.io when missing)"
		scripts/docker-up.sh
	elif command -v docker >/dev/null 2>&1 && [ -S /var/run/docker.sock ]; then
		say "a Docker daemon runs, but $(id -un) may not use it. Run:"
		say "  sudo usermod -aG docker $(id -un) && sg docker -c 'bash scripts/quickstart.sh'"
		say "or run the quickstart as root: sudo bash scripts/quickstart.sh"
		exit 2
	else
		say "no Docker daemon answers, and starting one needs root. Run:"
		say "  sudo bash scripts/docker-up.sh && sudo bash scripts/quickstart.sh"
		exit 2
	fi
fi

if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
	say "building the sandbox image $IMAGE (once; a few minutes)"
	if docker build -q -t "$IMAGE" images/base >/dev/null 2>&1; then
		say "built $IMAGE from images/base"
	elif [ "$(id -u)" -eq 0 ]; then
		say "no registry reachable for the default base image: building from a local Debian base (scripts/build-test-image.sh)"
		IMAGE="$IMAGE" scripts/build-test-image.sh
	else
		say "no registry reachable for the default base image, and the local Debian base needs root. Run:"
		say "  sudo IMAGE=$IMAGE bash scripts/build-test-image.sh && bash scripts/quickstart.sh"
		exit 2
	fi
fi

say "running the keyless markdown engine on testdata/sample-repo in $IMAGE"
set +e
"$go" run ./cmd/readme2demo run --engine markdown --image "$IMAGE" --out "$OUT" testdata/sample-repo
rc=$?
set -e
if [ ! -f "$OUT/command_log.json" ]; then
	say "the run wrote no command_log.json (exit $rc)"
	exit 1
fi
echo
"$go" run ./cmd/readme2demo report "$OUT/command_log.json"
echo
if [ "$rc" = 1 ] && grep -q '"line": 24' "$OUT/command_log.json"; then
	say "as intended, the run found the sample README's broken step (README.md line 24)."
	say "files in $OUT/: command_log.json, report.md, report.html, demo.cast (asciinema play), demo.sh, transcript.jsonl"
	exit 0
fi
say "unexpected result (exit $rc); see $OUT/command_log.json"
exit 1
