#!/usr/bin/env bash
# scripts/action/release.sh — the first step of the Action (action.yml): is this ref of the
# action a published release? If so, download that release's action binary and
# sandbox-images.json and verify both against the release's checksums.txt, failing closed;
# otherwise say "source" and let the Action build from source.
#
# The ref is a release when
#   - ACTION_REF is a version tag vX.Y.Z, or
#   - ACTION_REF is a major tag vN or a full commit SHA and CHANGELOG.md in the action's
#     directory names vX.Y.Z (with major N) as its newest release,
# and that release exists in ACTION_REPOSITORY (a fork without releases, a local tag, or a
# tag that was never released builds from source), its manifest names the same repository
# and version, and, for a SHA, the same commit (a later commit of a branch is not the release).
#
# Env: ACTION_REF, ACTION_REPOSITORY, ACTION_PATH (github.action_*), RUNNER_OS, RUNNER_ARCH,
#      RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_SERVER_URL;
#      R2D_RELEASE_URL (optional): where releases' assets are, as $R2D_RELEASE_URL/<tag>/<file>
#      (default $GITHUB_SERVER_URL/$ACTION_REPOSITORY/releases/download; for mirrors and tests).
# Outputs: path=released|source; on released also version, bin (the verified action binary)
#          and manifest (the verified sandbox-images.json).
set -euo pipefail

out() { printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:-/dev/stdout}"; }
source_path() {
	echo "readme2demo: $1; building from source"
	out path source
	exit 0
}
fail() {
	echo "::error title=readme2demo release download::$1"
	exit 1
}

ref="${ACTION_REF:-}"
repo="${ACTION_REPOSITORY:-}"
action_path="${ACTION_PATH:?ACTION_PATH is not set}"
tmp="${RUNNER_TEMP:?RUNNER_TEMP is not set}/readme2demo-release"

[ -n "$repo" ] || source_path "the action was not used from a repository (a local path)"
[ "${RUNNER_OS:-Linux}" = Linux ] || source_path "released binaries are for Linux runners, this is ${RUNNER_OS}"
case "${RUNNER_ARCH:-X64}" in
X64) arch=amd64 ;;
ARM64) arch=arm64 ;;
*) source_path "no released binary for the runner architecture ${RUNNER_ARCH}" ;;
esac

# changelog_version prints the newest released version in CHANGELOG.md ("## [1.2.3] - date"
# after an optional "## [Unreleased]") as v1.2.3, or nothing.
changelog_version() {
	[ -r "$action_path/CHANGELOG.md" ] || return 0
	sed -n '/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)\].*/{s//v\1/p;q;}' "$action_path/CHANGELOG.md"
}

sha=""
if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	version="$ref"
elif [[ "$ref" =~ ^v[0-9]+$ ]]; then
	version="$(changelog_version)"
	[[ "$version" == "$ref".* ]] || source_path "ref $ref: CHANGELOG.md names no ${ref}.x.y release"
elif [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
	version="$(changelog_version)"
	sha="$ref"
	[ -n "$version" ] || source_path "commit $ref: CHANGELOG.md names no release"
else
	source_path "ref '${ref}' is not a release (a version tag vX.Y.Z, its major tag, or its commit SHA)"
fi

base="${R2D_RELEASE_URL:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download}"
base="${base%/}/$version"
rm -rf "$tmp"
mkdir -p "$tmp"

# fetch FILE: download $base/FILE into $tmp; prints the HTTP status (000: no answer).
fetch() {
	curl --silent --show-error --location --retry 3 --retry-connrefused --connect-timeout 10 \
		--max-time 300 --output "$tmp/$1" --write-out '%{http_code}' "$base/$1" 2>"$tmp/curl.err" || true
}

status="$(fetch sandbox-images.json)"
case "$status" in
200) ;;
404) source_path "$repo has no release $version" ;;
*)
	echo "::warning title=readme2demo release download::could not download $base/sandbox-images.json (HTTP $status: $(head -c 300 "$tmp/curl.err")); building from source"
	out path source
	exit 0
	;;
esac

# From here on the release exists: anything wrong fails the step, nothing falls back.
bin_name="readme2demo-action_${version#v}_linux_${arch}"
for f in checksums.txt "$bin_name"; do
	status="$(fetch "$f")"
	[ "$status" = 200 ] || fail "download $base/$f: HTTP $status $(head -c 300 "$tmp/curl.err"). The release $version is incomplete or unreachable; re-run the job, or pin the action to a branch or commit to build it from source."
done

# verify FILE: its SHA-256 must be the one checksums.txt lists for it (exactly one line).
verify() {
	local file="$1" want got n
	read -r n want < <(awk -v f="$file" '$2 == f || $2 == "*" f { n++; w = $1 } END { print n + 0, w }' "$tmp/checksums.txt")
	[ "$n" = 1 ] || fail "checksums.txt of release $version lists $file $n times, not once: refusing to use it (nothing was run)."
	got="$(sha256sum "$tmp/$file")"
	got="${got%% *}"
	if [ "$want" != "$got" ]; then
		rm -f "$tmp/$file"
		fail "checksum mismatch for $file of release $version: checksums.txt says sha256 $want, the download is $got. The file was corrupted or tampered with and was deleted; nothing was run. Re-run the job; if it happens again, report it."
	fi
}
verify sandbox-images.json
verify "$bin_name"

# The manifest is ours (written by cmd/r2d-release, one field a line): it must be this
# release of this repository, and for a SHA ref this very commit.
field() { sed -n "/^  \"$1\": \"\([^\"]*\)\",\{0,1\}\$/{s//\1/p;q;}" "$tmp/sandbox-images.json"; }
m_version="$(field version)" m_repo="$(field repository)" m_commit="$(field commit)"
[ "$m_version" = "$version" ] || fail "sandbox-images.json of release $version says version '$m_version'."
[ "${m_repo,,}" = "${repo,,}" ] || fail "sandbox-images.json of release $version belongs to '$m_repo', not $repo."
if [ -n "$sha" ] && [ "$m_commit" != "$sha" ]; then
	rm -rf "$tmp"
	source_path "commit $sha is not the commit of release $version ($m_commit)"
fi

install -m 0755 "$tmp/$bin_name" "$tmp/readme2demo-action"
rm -f "$tmp/$bin_name" "$tmp/curl.err"
echo "readme2demo: release $version of $repo: verified readme2demo-action ($arch) and sandbox-images.json against checksums.txt"
out path released
out version "$version"
out bin "$tmp/readme2demo-action"
out manifest "$tmp/sandbox-images.json"
