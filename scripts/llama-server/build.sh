#!/usr/bin/env bash
# Builds llama-server from the llama.cpp source that node-llama-cpp ships in its npm package
# (node_modules/node-llama-cpp/llama/gitRelease.bundle), so the benchmark's third column runs the
# same llama.cpp release as the worker. CPU only, one kernel variant compiled for this machine
# (GGML_NATIVE): llama.cpp's all-variants build is what crashes on some VMs (see DESIGN.md).
# Output: .weft-test/llama-server/bin/llama-server (LLAMA_SERVER_DIR to change; scripts/llama-server/cached.sh
# builds it once into the cache that `npm run bench:inference` looks in). Or by hand:
#   LLAMA_SERVER_BIN=.weft-test/llama-server/bin/llama-server npm run bench:inference
# Needs cmake and a C++ compiler (apt-get install cmake g++). Low priority, two jobs: the
# machines this is built on are shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=node_modules/node-llama-cpp/llama/gitRelease.bundle
info=node_modules/node-llama-cpp/llama/llama.cpp.info.json
out=${LLAMA_SERVER_DIR:-.weft-test/llama-server}
jobs=${JOBS:-2}
[ -f "$bundle" ] || { echo "llama-server: $bundle not found; run npm install first" >&2; exit 1; }
for tool in cmake c++ git; do
  command -v "$tool" >/dev/null || { echo "llama-server: $tool not found (apt-get install cmake g++ git)" >&2; exit 1; }
done

tag=$(node -p "require('./$info').tag")
if [ ! -d "$out/src/.git" ]; then
  rm -rf "$out/src" && mkdir -p "$out"
  git -c advice.detachedHead=false clone --quiet "$bundle" "$out/src"
fi
echo "llama-server: llama.cpp $tag ($(git -C "$out/src" rev-parse --short HEAD)) from node-llama-cpp's bundle"

# Static, no curl (nothing to download), no tests or examples: only the server target.
nice -n 15 cmake -S "$out/src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
  -DGGML_NATIVE="${GGML_NATIVE:-ON}" -DGGML_BACKEND_DL=OFF -DGGML_CPU_ALL_VARIANTS=OFF \
  -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON \
  ${LLAMA_CMAKE_ARGS:-} >"$out/configure.log"
nice -n 15 cmake --build "$out/build" --target llama-server -j "$jobs" >"$out/build.log"
mkdir -p "$out/bin"
cp "$out/build/bin/llama-server" "$out/bin/llama-server"
echo "llama-server: $out/bin/llama-server"
"$out/bin/llama-server" --version 2>&1 | tail -n 2
