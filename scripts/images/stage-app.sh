#!/usr/bin/env bash
# Stages the app image's context: built dist folders, the manifests, production dependencies
# (no dev, no optional CUDA/Vulkan builds of llama.cpp) and the generated test model.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: stage-app.sh <dir>}
rm -rf "$out" && mkdir -p "$out"

[ -d node_modules ] || npm install --no-audit --no-fund
npx nx run-many -t build --skip-nx-cache >/dev/null

cp package.json package-lock.json "$out/"
for pkg in apps/* libs/*; do
  mkdir -p "$out/$pkg"
  cp "$pkg/package.json" "$out/$pkg/"
  [ -d "$pkg/dist" ] && cp -r "$pkg/dist" "$out/$pkg/"
  # The CLI's tests build into dist/test-* folders of their own (apps/cli/src/testing/built-cli.ts).
  rm -rf "$out/$pkg"/dist/test-*
done
# The sandbox worker reads its seccomp profile from apps/sandbox/seccomp (docker/seccomp-profile.ts).
mkdir -p "$out/apps/sandbox/seccomp" && cp apps/sandbox/seccomp/weft-seccomp.json "$out/apps/sandbox/seccomp/"
# `npm install` rather than `ci`: the lock file holds only this platform's optional packages,
# which `ci --omit=optional` refuses; versions still come from the copied lock file.
(cd "$out" && npm install --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund >/dev/null)
# The CPU build of llama.cpp is an optional package too (each platform has its own, so that
# `npm install` works on any of them); the image is linux-x64, and takes the one installed here.
llama_cpu=node_modules/@node-llama-cpp/linux-x64
[ -d "$llama_cpu" ] || { echo "stage-app: $llama_cpu is not installed (build the images on linux-x64)" >&2; exit 1; }
mkdir -p "$out/node_modules/@node-llama-cpp" && cp -r "$llama_cpu" "$out/node_modules/@node-llama-cpp/"

# The llama.cpp binary the worker loads (LLAMA_BINARY=auto): node-llama-cpp's addon compiled for
# this machine's CPU from the source the package ships (scripts/llama/cached-build.sh: built once,
# cached outside the repository per CPU and version; WEFT_LLAMA_BUILD=source|auto|prebuilt).
# Without one the prebuilt serves, and cached-build.sh has said why.
release=$(bash scripts/llama/cached-build.sh)
if [ -n "$release" ]; then bash scripts/llama/install-addon.sh "$release" "$out/node_modules/node-llama-cpp"; fi

# WEFT_LLAMA_SOURCE_BUILD=1, the older way (compiled afresh in every image build): the image
# compiles node-llama-cpp's addon from the llama.cpp source the package ships
# (scripts/llama/build-addon.sh, for the building machine's CPU), which the worker then loads
# instead of the prebuilt (LLAMA_BINARY=auto). Node's headers come from this Node: the image's
# Node has only its binary.
if [ "${WEFT_LLAMA_SOURCE_BUILD:-0}" = 1 ]; then
  node_include=$(dirname "$(dirname "$(command -v node)")")/include/node
  [ -f "$node_include/node_api.h" ] || { echo "stage-app: Node's headers not found in $node_include" >&2; exit 1; }
  mkdir -p "$out/llama-build/scripts/llama" "$out/llama-build/include"
  cp scripts/llama/build-addon.sh scripts/llama/source.sh "$out/llama-build/scripts/llama/"
  cp -r scripts/llama/addon-patches "$out/llama-build/scripts/llama/"
  cp -r "$node_include" "$out/llama-build/include/node"
fi

mkdir -p "$out/opt-models" "$out/etc"
# A long trained context: the agent's system prompt and tool schemas alone take ~6k of its byte-level tokens.
node scripts/gguf/make-test-model.mjs "$out/opt-models/tiny.gguf" --context 16384 >/dev/null
cp -r config "$out/etc/weft"
cp docker/app.Dockerfile "$out/Dockerfile"
