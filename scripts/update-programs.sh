#!/usr/bin/env bash
# update-programs.sh — rewrite internal/plan/programs.txt, the default image's command list
# that readme2demo ships (plan.DefaultPrograms: `readme2demo plan` without Docker, and runs in
# an image that recorded none), from the list a built image recorded when it was built
# (engines.ProgramsContainerPath, images/base/Dockerfile). Run it after changing the image and
# rebuilding it (scripts/build-test-image.sh), and commit the result:
# TestDefaultProgramsAreTheTestImages (internal/pipeline) fails while the two differ.
#
# It runs that test with -update, so the list is read the way a run reads it. Docker and the
# image must be there (CI=true makes their absence an error instead of a skip).
#
# Env: IMAGE   the image to read (default: $R2D_TEST_IMAGE, else readme2demo-base:test)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IMAGE="${IMAGE:-${R2D_TEST_IMAGE:-readme2demo-base:test}}"

cd "$repo_root"
CI=true R2D_TEST_IMAGE="$IMAGE" go test ./internal/pipeline -run '^TestDefaultProgramsAreTheTestImages$' -count=1 -update
echo "internal/plan/programs.txt: $(grep -cv '^\(#\|$\)' internal/plan/programs.txt) commands of $IMAGE"
git diff --stat -- internal/plan/programs.txt
