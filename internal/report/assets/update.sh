#!/usr/bin/env bash
# update.sh re-fetches the vendored Chart.js from the npm registry:
#   internal/report/assets/update.sh [VERSION]
# It takes the minified UMD build and the licence from the package tarball,
# then prints the checksum to record in README.md.
set -euo pipefail
version="${1:-4.6.1}"
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "chart.js@$version" >/dev/null && tar xzf "chart.js-$version.tgz")
cp "$tmp/package/dist/chart.umd.min.js" "$here/chart.umd.min.js"
cp "$tmp/package/LICENSE.md" "$here/LICENSE.md"
# The report inlines the library in a <script>: it must not end it early.
if grep -qi '</script' "$here/chart.umd.min.js"; then
  echo "chart.umd.min.js contains </script: the report cannot inline it" >&2
  exit 1
fi
echo "chart.js $version: $(sha256sum "$here/chart.umd.min.js" | cut -d' ' -f1)  chart.umd.min.js"
echo "update the version and checksum in $here/README.md"
