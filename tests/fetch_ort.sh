#!/bin/sh
# Fetches onnxruntime-node and onnxruntime-common (pinned) with tests/fetch_npm.sh and links them into
# build/npm/ort/node_modules, the NODE_PATH that tests/ort_run.js needs. Prints that directory on success. The
# package's install script is not run: its linux-x64 CPU library is in the package itself.
set -eu
node_dir=$(tests/fetch_npm.sh onnxruntime-node@1.30.0)
common_dir=$(tests/fetch_npm.sh onnxruntime-common@1.30.0)
mkdir -p build/npm/ort/node_modules
ln -sfn "$PWD/$node_dir/package" build/npm/ort/node_modules/onnxruntime-node
ln -sfn "$PWD/$common_dir/package" build/npm/ort/node_modules/onnxruntime-common
echo "build/npm/ort/node_modules"
