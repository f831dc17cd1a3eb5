#!/usr/bin/env bash
# build-image.sh [TAG] - builds the xperf node image: `bazel build` of xperf and
# xperf-bpf, then a build context holding only Dockerfile, the two binaries and
# the node agent script (bazel-bin is a symlink tree docker cannot follow), then
# `docker build` (or podman). STAGE_ONLY=1 stops after staging and prints the
# context directory (used by image_test, and where no container engine exists).
set -euo pipefail
tag=${1:-xperf:dev}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bazel build //cli:xperf //cli:xperf-bpf >&2
ctx=$(mktemp -d)
cp deploy/Dockerfile "$ctx/"
cp -L bazel-bin/cli/xperf bazel-bin/cli/xperf-bpf "$ctx/"
chmod 0755 "$ctx/xperf" "$ctx/xperf-bpf"
if [ "${STAGE_ONLY:-0}" = 1 ]; then
	echo "$ctx"
	exit 0
fi
engine=$(command -v docker || command -v podman) || {
	echo "build-image: no docker or podman; context staged in $ctx" >&2
	exit 1
}
"$engine" build -t "$tag" "$ctx"
rm -rf "$ctx"
echo "build-image: built $tag" >&2
