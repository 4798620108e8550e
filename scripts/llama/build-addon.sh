#!/usr/bin/env bash
# Builds node-llama-cpp's native addon from the llama.cpp source its npm package ships
# (llama/gitRelease.bundle, plus node-llama-cpp's own patches), offline, and installs it as
# node-llama-cpp's "last build": the inference worker then loads it instead of the prebuilt
# binaries (LLAMA_BINARY=auto, the default; LLAMA_BINARY=prebuilt ignores it).
#
# One CMake tree builds the addon and, when LLAMA_TOOLS names them, llama.cpp's own programs
# (llama-server, llama-bench, llama-quantize) from the same objects, so a benchmark of the two
# compares the same compiled kernels. Everything lands in one folder, printed at the end.
#
# Why not `npx node-llama-cpp source build`: it drives cmake-js, which downloads Node's headers
# from nodejs.org; these machines have no internet. Node's own distribution ships the headers
# (include/node beside bin/node), and that is all cmake-js would add.
#
#   LLAMA_GPU=cpu|cuda        (default cpu)
#   CUDA_ARCHITECTURES=90     (cuda only; default: the GPUs of this machine, `native`)
#   LLAMA_TOOLS="llama-server llama-bench llama-quantize"   (default: none)
#   GGML_NATIVE=ON            (CPU kernels for this machine's CPU; OFF for a portable build)
#   JOBS=N                    (default: all cores)
#   NODE_LLAMA_CPP_DIR        (default node_modules/node-llama-cpp)
#   LLAMA_SOURCE_TARBALL      (a .tar.xz of the patched source, for machines without the bundle)
set -euo pipefail
cd "$(dirname "$0")/../.."

nlc=$(realpath -m "${NODE_LLAMA_CPP_DIR:-node_modules/node-llama-cpp}")
gpu=${LLAMA_GPU:-cpu}
jobs=${JOBS:-$(nproc)}
tools=${LLAMA_TOOLS:-}
src=$nlc/llama/llama.cpp
build=$nlc/llama/weft-build
fail() { echo "build-addon: $*" >&2; exit 1; }

[ -f "$nlc/package.json" ] || fail "$nlc not found; run npm install first"
case "$gpu" in cpu | cuda) ;; *) fail "LLAMA_GPU must be cpu or cuda, got '$gpu'" ;; esac
for tool in cmake c++ node patch; do command -v "$tool" >/dev/null || fail "$tool not found (apt-get install cmake g++ patch)"; done
[ "$gpu" = cuda ] && { command -v nvcc >/dev/null || fail "nvcc not found: LLAMA_GPU=cuda needs the CUDA toolkit"; }

node_include=$(dirname "$(dirname "$(command -v node)")")/include/node
[ -f "$node_include/node_api.h" ] || node_include=/usr/include/node
[ -f "$node_include/node_api.h" ] || fail "Node's headers (node_api.h) not found beside $(command -v node) or in /usr/include/node"

tag=$(node -p "require('$nlc/llama/llama.cpp.info.json').tag")
if [ ! -f "$src/CMakeLists.txt" ]; then
  if [ -n "${LLAMA_SOURCE_TARBALL:-}" ]; then
    mkdir -p "$src" && tar -xJf "$LLAMA_SOURCE_TARBALL" -C "$src" --strip-components=1
  else
    scripts/llama/source.sh "$nlc" "$src"
  fi
fi

# Weft's changes to node-llama-cpp's addon (scripts/llama/addon-patches, each file says why),
# applied once: a second build over the same folder finds them in place.
for patch_file in scripts/llama/addon-patches/*.diff; do
  [ -f "$patch_file" ] || continue
  name=$(basename "$patch_file")
  if patch -d "$nlc/llama" -p1 --forward --dry-run --silent <"$patch_file" >/dev/null 2>&1; then
    patch -d "$nlc/llama" -p1 --forward --silent <"$patch_file" && echo "build-addon: applied $name"
  elif patch -d "$nlc/llama" -p1 --reverse --dry-run --silent <"$patch_file" >/dev/null 2>&1; then
    echo "build-addon: $name already applied"
  else
    fail "$name does not apply to node-llama-cpp's addon in $nlc: update the patch for this version"
  fi
done

variant=weft-$gpu
folder=linux-x64-$variant
gpu_args=(-DGGML_CUDA=OFF)
if [ "$gpu" = cuda ]; then
  # FA for every KV type would multiply the CUDA compile time; q8_0 and f16 caches are covered.
  gpu_args=(-DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES:-native}" -DGGML_CUDA_FA_ALL_QUANTS=OFF)
fi
server=OFF
[[ " $tools " == *" llama-server "* ]] && server=ON
tools_flag=OFF
[ -n "$tools" ] && tools_flag=ON

echo "build-addon: llama.cpp $tag, $gpu, tools: ${tools:-none}, $jobs jobs"
# The same definitions node-llama-cpp's own source build passes (compileLLamaCpp.js), minus
# the all-CPU-variants build, which crashes on some VMs (DESIGN.md).
cmake -S "$nlc/llama" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_JS_INC="$node_include" -DNLC_CURRENT_PLATFORM=linux-x64 -DNLC_TARGET_PLATFORM=linux-x64 \
  -DNLC_VARIANT="$variant" -DGGML_BUILD_NUMBER=1 -DGGML_CCACHE=OFF -DGGML_METAL=OFF \
  -DGGML_NATIVE="${GGML_NATIVE:-ON}" -DGGML_BACKEND_DL=OFF -DGGML_CPU_ALL_VARIANTS=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_BORINGSSL=OFF -DLLAMA_HTTPLIB="$server" \
  -DLLAMA_BUILD_TOOLS="$tools_flag" -DLLAMA_BUILD_SERVER="$server" -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$build/bin" -DCMAKE_LIBRARY_OUTPUT_DIRECTORY="$build/bin" \
  "${gpu_args[@]}" ${LLAMA_CMAKE_ARGS:-} >"$build.configure.log" 2>&1 || { tail -n 30 "$build.configure.log"; fail "configure failed (log: $build.configure.log)"; }
# shellcheck disable=SC2086
cmake --build "$build" --target llama-addon $tools -j "$jobs" >"$build.log" 2>&1 || { grep -m 20 -B2 -A8 'error' "$build.log" || tail -n 40 "$build.log"; fail "build failed (log: $build.log)"; }

# node-llama-cpp's local-build layout: localBuilds/<folder>/Release/{llama-addon.node, libs,
# _nlcBuildMetadata.json}, buildDone.status, and llama/lastBuild.json naming the folder.
out=$nlc/llama/localBuilds/$folder
rm -rf "$out" && mkdir -p "$out/Release"
cp -a "$build/bin/." "$out/Release/"
gpu_json=false
[ "$gpu" = cuda ] && gpu_json='"cuda"'
cat >"$out/Release/_nlcBuildMetadata.json" <<JSON
{"buildOptions":{"customCmakeOptions":{"GGML_NATIVE":"${GGML_NATIVE:-ON}"},"progressLogs":true,"platform":"linux","platformInfo":{"name":"Linux","version":"$(uname -r)"},"arch":"x64","gpu":$gpu_json,"llamaCpp":{"repo":"ggml-org/llama.cpp","release":"$tag"}}}
JSON
touch "$out/buildDone.status"
echo "{\"folderName\": \"$folder\"}" >"$nlc/llama/lastBuild.json"
echo "build-addon: installed $out/Release"
ls "$out/Release"
