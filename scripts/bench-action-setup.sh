#!/usr/bin/env bash
# bench-action-setup.sh — time the Action's steps up to the agent's first command, on the
# released path and on the source path, on this machine (docs/benchmarks.md, "Time to the
# agent's first command").
#
#   scripts/bench-action-setup.sh keyless=readme2demo-sandbox-keyless:test [claude-code=IMG ...]
#
# Released path, as action.yml runs it, against a release served from this machine
# (scripts/releaseserve: an in-process registry on 127.0.0.1 holding the given images, pushed
# gzip-compressed like a buildx push, and a file server with the release's files):
#   release.sh    download sandbox-images.json, checksums.txt and the action binary, verify
#   validate      the action binary's input and credential check
#   pull-image    the engine's image by digest, for each FLAVOUR=IMAGE given (removed first, so
#                 every layer is downloaded and extracted: a fresh runner has none of them)
#   first command the run of the keyless engine on testdata/sample-repo in the keyless image
#                 until its first command (the run's own "[mm:ss] $ ..." progress line)
# Source path: `go build ./cmd/action` with empty module and build caches (what every run paid
# before, as setup-go's cache never restored) and with both caches warm (what actions/cache now
# restores). The image build is not repeated here: images/base/README.md has its timings.
#
# Env: WORK (scratch dir, default a temp dir), NETWORK (the run's network, default none: the
# time to the first command without the egress proxy's self-test; allowlist includes it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo_root="$(pwd)"

[ "$#" -gt 0 ] || { echo "usage: $0 FLAVOUR=IMAGE... (at least keyless=IMAGE)" >&2; exit 2; }
WORK="${WORK:-$(mktemp -d)}"
NETWORK="${NETWORK:-none}"
version=v0.0.0
reg=127.0.0.1:5055
assets=127.0.0.1:8099
mkdir -p "$WORK/dist" "$WORK/tmp"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
report() { printf '%-44s %8s s\n' "$1" "$2"; }

echo "== building the release's action binary and the release server" >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/dist/readme2demo-action_0.0.0_linux_amd64" ./cmd/action
go build -o "$WORK/releaseserve" ./scripts/releaseserve

args=()
for a in "$@"; do args+=(-image "$a"); done
"$WORK/releaseserve" -registry "$reg" -assets "$assets" -version "$version" \
	-manifest "$WORK/dist/sandbox-images.json" -dist "$WORK/dist" "${args[@]}" >"$WORK/releaseserve.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
echo "== pushing the images to the in-process registry (gzip; minutes for GB)" >&2
until grep -q "release assets on" "$WORK/releaseserve.log" 2>/dev/null; do
	kill -0 "$server" 2>/dev/null || { cat "$WORK/releaseserve.log" >&2; exit 1; }
	sleep 1
done
grep "pushed" "$WORK/releaseserve.log" >&2
(cd "$WORK/dist" && sha256sum readme2demo-action_0.0.0_linux_amd64 sandbox-images.json >checksums.txt)

echo
echo "released path (this machine)"
out="$WORK/github_output"
: >"$out"
t0="$(now)"
ACTION_REF="$version" ACTION_REPOSITORY=readme2demo/readme2demo ACTION_PATH="$repo_root" RUNNER_OS=Linux \
	RUNNER_ARCH=X64 RUNNER_TEMP="$WORK/tmp" GITHUB_OUTPUT="$out" R2D_RELEASE_URL="http://$assets" \
	bash scripts/action/release.sh >/dev/null
t1="$(now)"
grep -q '^path=released$' "$out" || { echo "release.sh did not take the released path" >&2; cat "$out" >&2; exit 1; }
bin="$(sed -n 's/^bin=//p' "$out")"
manifest="$(sed -n 's/^manifest=//p' "$out")"
report "release.sh (download + verify, $(($(stat -c %s "$bin") >> 20)) MB binary)" "$(secs "$t0" "$t1")"
t0="$(now)"
env -i PATH="$PATH" INPUT_ENGINE=markdown "$bin" validate >/dev/null
report "validate" "$(secs "$t0" "$(now)")"

keyless_ref=""
for a in "$@"; do
	flavour="${a%%=*}"
	engine="$flavour"
	[ "$flavour" = keyless ] && engine=markdown
	ref="$(sed -n "/\"$flavour\": {/,/}/s/.*\"image\": \"\\([^\"]*\\)\".*/\\1/p" "$manifest")"
	[ "$flavour" = keyless ] && keyless_ref="$ref"
	docker image rm "$ref" >/dev/null 2>&1 || true
	size="$(docker image inspect "${a#*=}" --format '{{.Size}}')"
	t0="$(now)"
	env -i PATH="$PATH" INPUT_ENGINE="$engine" R2D_RELEASE_MANIFEST="$manifest" "$bin" pull-image >"$WORK/pull-$flavour.log" 2>&1 \
		|| { cat "$WORK/pull-$flavour.log" >&2; exit 1; }
	report "pull-image $flavour ($((size / 1000000)) MB)" "$(secs "$t0" "$(now)")"
done

if [ -n "$keyless_ref" ]; then
	t0="$(now)"
	first=""
	# Read to the end (the run goes on after its first command; a closed pipe would kill it).
	while IFS= read -r line; do
		case "$line" in *"] \$ "*) [ -n "$first" ] || first="$(now)" ;; esac
	done < <(env -i PATH="$PATH" HOME="$HOME" INPUT_ENGINE=markdown INPUT_IMAGE="$keyless_ref" INPUT_NETWORK="$NETWORK" \
		INPUT_WORKING_DIRECTORY=testdata/sample-repo INPUT_OUTPUT_DIR="$WORK/out" INPUT_FAIL_ON=never \
		INPUT_COMMENT=never "$bin" 2>&1)
	[ -n "$first" ] && report "run until the first command (network $NETWORK)" "$(secs "$t0" "$first")"
fi

echo
echo "source path: go build ./cmd/action (this machine)"
t0="$(now)"
GOMODCACHE="$WORK/gomod" GOCACHE="$WORK/gocache" CGO_ENABLED=0 go build -trimpath -o "$WORK/built" ./cmd/action
report "empty module and build caches" "$(secs "$t0" "$(now)")"
t0="$(now)"
rm -f "$WORK/built"
GOMODCACHE="$WORK/gomod" GOCACHE="$WORK/gocache" CGO_ENABLED=0 go build -trimpath -o "$WORK/built" ./cmd/action
report "both caches restored (the link is cached too)" "$(secs "$t0" "$(now)")"
du -sh "$WORK/gomod" "$WORK/gocache" | awk '{ printf "  cache %s: %s\n", $2, $1 }'
chmod -R u+w "$WORK/gomod" 2>/dev/null || true
