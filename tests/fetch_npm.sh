#!/bin/sh
# Fetches one pinned npm package with `npm pack` and unpacks it under build/npm/<name>/ (the package's files are
# in build/npm/<name>/package/). Prints that directory on success. Tests that need a package call this (or CI
# does) and report "skipped" when it fails, for example when the npm registry cannot be reached.
#   tests/fetch_npm.sh @node-llama-cpp/linux-x64@3.21.1
set -eu
spec=${1:?usage: tests/fetch_npm.sh NAME@VERSION}
name=${spec%@*}
dir="build/npm/$(echo "$name" | tr '/@' '__')"
if [ -d "$dir/package" ]; then echo "$dir"; exit 0; fi
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
( cd "$tmp" && npm pack --silent "$spec" >/dev/null 2>&1 ) || { echo "npm pack $spec failed" >&2; exit 1; }
tar -xzf "$tmp"/*.tgz -C "$dir" || { echo "unpacking $spec failed" >&2; rm -rf "$dir"; exit 1; }
echo "$dir"
