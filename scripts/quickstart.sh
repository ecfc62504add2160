#!/usr/bin/env bash
# quickstart.sh — the main job on the built-in example, with no API key:
# runs the keyless markdown engine against testdata/sample-repo in a fresh,
# locked-down container and prints the report. The sample README has one
# deliberately broken step (README.md line 24), which the run must find.
#
# Needs Go and a running Docker daemon. Builds the sandbox image once when it
# is missing: `docker build images/base` where a registry is reachable, else
# scripts/build-test-image.sh (a local Debian base, no registry; needs root).
#
# Env: IMAGE (default readme2demo-base:test), OUT (default readme2demo-out).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

IMAGE="${IMAGE:-readme2demo-base:test}"
OUT="${OUT:-readme2demo-out}"

if ! docker info >/dev/null 2>&1; then
	echo "quickstart: no Docker daemon answers. Start Docker (e.g. 'sudo systemctl start docker'," >&2
	echo "or run scripts/docker-up.sh as root, which installs and starts it), then run this again." >&2
	exit 2
fi
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
	echo "quickstart: building the sandbox image $IMAGE (once; a few minutes)" >&2
	if ! docker build -q -t "$IMAGE" images/base >/dev/null 2>&1; then
		echo "quickstart: no registry reachable for the default base image; building from a local Debian base" >&2
		IMAGE="$IMAGE" scripts/build-test-image.sh
	fi
fi

set +e
go run ./cmd/readme2demo run --engine markdown --image "$IMAGE" --out "$OUT" testdata/sample-repo
rc=$?
set -e
if [ ! -f "$OUT/command_log.json" ]; then
	echo "quickstart: the run wrote no command_log.json (exit $rc)" >&2
	exit 1
fi
echo
go run ./cmd/readme2demo report "$OUT/command_log.json"
echo
if [ "$rc" = 1 ] && grep -q '"line": 24' "$OUT/command_log.json"; then
	echo "quickstart: as intended, the run found the sample README's broken step (README.md line 24)."
	echo "quickstart: files in $OUT/: command_log.json, report.md, demo.cast (asciinema play), demo.sh, transcript.jsonl"
	exit 0
fi
echo "quickstart: unexpected result (exit $rc); see $OUT/command_log.json" >&2
exit 1
