#!/usr/bin/env bash
# release.sh VERSION [OS/ARCH ...]: txnbench's release binaries.
#
# Builds txnbench for linux and darwin on amd64 and arm64 (or the targets
# given), pure Go (CGO_ENABLED=0), -trimpath, with VERSION stamped (what
# `txnbench version` prints), into dist/VERSION/txnbench-VERSION-OS-ARCH, and
# writes dist/VERSION/SHA256SUMS. DIST=DIR writes into DIR instead. The
# container image is built from deploy/kubernetes/Dockerfile (printed at the
# end). Exit status: 0 done, 2 a bad VERSION or target, 1 a build failed.
set -euo pipefail

usage() { echo "release.sh: $1" >&2; exit 2; }
[ $# -ge 1 ] || usage "give the version to release, e.g. scripts/release.sh v1.2.0"
version=$1
shift
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || usage "version $version: give a semantic version tag such as v1.2.0"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)
for t in "${targets[@]}"; do
	case $t in
	linux/amd64 | linux/arm64 | darwin/amd64 | darwin/arm64) ;;
	*) usage "target $t: choose linux/amd64, linux/arm64, darwin/amd64 or darwin/arm64" ;;
	esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
dist=${DIST:-$root/dist/$version}
mkdir -p "$dist"
cd "$root"
names=()
for t in "${targets[@]}"; do
	name=txnbench-$version-${t%/*}-${t#*/}
	echo "building $name" >&2
	CGO_ENABLED=0 GOOS=${t%/*} GOARCH=${t#*/} go build -trimpath \
		-ldflags "-s -w -X github.com/txnbench/txnbench/internal/cli.Version=$version" \
		-o "$dist/$name" ./cmd/txnbench
	names+=("$name")
done

cd "$dist"
if command -v sha256sum >/dev/null; then
	sha256sum "${names[@]}" >SHA256SUMS
else
	shasum -a 256 "${names[@]}" >SHA256SUMS # macOS
fi
echo "wrote ${#names[@]} binaries and SHA256SUMS to $dist" >&2
echo "the image: docker build -f deploy/kubernetes/Dockerfile --build-arg VERSION=$version -t txnbench:$version ." >&2
