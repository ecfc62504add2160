#!/usr/bin/env bash
# release-notes.sh TAG [CHANGELOG] — print the CHANGELOG.md section of release TAG (vX.Y.Z):
# the lines after its "## [X.Y.Z] ..." heading up to the next "## " heading, trimmed. The
# release workflow passes them to goreleaser as the release notes. Fails when the section
# is missing or empty.
set -euo pipefail
tag="${1:?usage: release-notes.sh vX.Y.Z [CHANGELOG.md]}"
file="${2:-CHANGELOG.md}"
version="${tag#v}"
notes="$(awk -v v="$version" '
	index($0, "## [" v "]") == 1 { inside = 1; next }
	inside && /^## / { exit }
	inside { print }
' "$file" | sed -e '/./,$!d' | sed -e ':a' -e '/^\n*$/{$d;N;ba' -e '}')"
if [ -z "$notes" ]; then
	echo "release-notes.sh: $file has no section '## [$version]' (or it is empty)" >&2
	exit 1
fi
printf '%s\n' "$notes"
