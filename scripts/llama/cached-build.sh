#!/usr/bin/env bash
# Chooses the llama.cpp binary for THIS machine's CPU and prints the folder of the local build to
# install, or nothing for node-llama-cpp's prebuilt. The local build is node-llama-cpp's addon
# compiled from the llama.cpp source its npm package ships (GGML_NATIVE, OpenMP), cached outside
# the repository by (node-llama-cpp version, llama.cpp release, recipe, CPU flags), so a second
# setup or a fresh clone on the same host reuses it. The compile runs in a container of the app
# image's base (scripts/llama/builder.Dockerfile): the host needs only Docker, and the binary runs
# in the app image (libgomp.so.1 is put beside it; the slim image has none).
#
#   WEFT_LLAMA_BUILD=source    (default) the local build whenever it builds: its OpenMP threads
#                              persist between decodes, which the prebuilt's do not, and on a busy
#                              host that made it 6-10x the prebuilt (docs/inference.md says why)
#   WEFT_LLAMA_BUILD=auto      build, then keep whichever of the two decodes faster here
#                              (compare-binaries.mjs, once per key): for a quiet machine only
#   WEFT_LLAMA_BUILD=prebuilt  no build
#   WEFT_LLAMA_CACHE           cache folder (default ${XDG_CACHE_HOME:-~/.cache}/weft/llama)
#   WEFT_LLAMA_REBUILD=1       build again (and with auto, time again), even after a failure (to
#                              time again only, remove `choice` in the build's cache folder)
#   JOBS=N                     compile jobs (default: all cores)
#
# When no local build can be had, the prebuilt serves and a banner on stderr says why and how
# to retry.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/images/names.sh
export DOCKER_BUILDKIT=0   # Debian's engine ships without buildx

nlc=$(realpath node_modules/node-llama-cpp)
cache=${WEFT_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/weft/llama}
builder=weft/llama-builder:latest

warn() {
  {
    echo
    echo "################################################################################"
    echo "## llama.cpp: NO BUILD FOR THIS CPU IN USE. The inference worker will use node-llama-cpp's"
    echo "## PREBUILT binary, which can be much slower (docs/inference.md, 'The llama.cpp binary')."
    echo "## Why: $1"
    [ -n "${2:-}" ] && echo "## Log: $2"
    echo "## Retry: WEFT_LLAMA_REBUILD=1 npm run images   (or WEFT_LLAMA_BUILD=prebuilt to silence)"
    echo "################################################################################"
    echo
  } >&2
}

mode=${WEFT_LLAMA_BUILD:-source}
case "$mode" in
  auto | source) ;;
  prebuilt) echo "llama.cpp: WEFT_LLAMA_BUILD=prebuilt: node-llama-cpp's prebuilt binary serves" >&2 && exit 0 ;;
  *) echo "llama.cpp: WEFT_LLAMA_BUILD must be auto, source or prebuilt, got '$mode'" >&2 && exit 1 ;;
esac

# In auto mode, prints the local build only when it decoded faster than the prebuilt on this
# machine; the verdict is kept beside the build (choice, choice.log).
choose() {
  local release=$1
  if [ "$mode" = auto ]; then
    if [ ! -f "$dir/choice" ] || [ "${WEFT_LLAMA_REBUILD:-0}" = 1 ]; then
      echo "llama.cpp: timing the build for this CPU against the prebuilt (once per build)" >&2
      # Bounded: on a machine too busy to time anything, the prebuilt stays (retry: WEFT_LLAMA_REBUILD=1).
      if ! BENCH_PICK=1 timeout -k 30 "${WEFT_LLAMA_PICK_TIMEOUT:-300}" node scripts/llama/compare-binaries.mjs "$release" >"$dir/choice.log" 2>&1; then
        tail -n 5 "$dir/choice.log" >&2
        echo "pick: prebuilt (the timing failed or took over ${WEFT_LLAMA_PICK_TIMEOUT:-300}s)" >>"$dir/choice.log"
        echo prebuilt >"$dir/choice"
        warn "the build for this CPU could not be timed against the prebuilt" "$dir/choice.log"
        return
      fi
      tail -n 1 "$dir/choice.log" | sed -n 's/^pick: \(local\|prebuilt\).*/\1/p' >"$dir/choice"
    fi
    grep -v '^{' "$dir/choice.log" | tail -n 4 >&2
    if [ "$(cat "$dir/choice")" != local ]; then
      echo "llama.cpp: node-llama-cpp's prebuilt decodes faster on this CPU: it serves (build kept in $dir)" >&2
      return
    fi
  fi
  echo "llama.cpp: the build for this CPU serves ($dir)" >&2
  echo "$release"
}

[ -f "$nlc/llama/gitRelease.bundle" ] || { warn "$nlc/llama/gitRelease.bundle not found (npm install first)"; exit 0; }
key=$(bash scripts/llama/build-key.sh "$nlc")
dir=$cache/$key
mkdir -p "$cache"
# One build per key at a time: a second setup meanwhile neither compiles it again nor waits.
exec 9>"$cache/$key.lock"
flock -n 9 || { warn "a build for this CPU is already running (lock $cache/$key.lock)"; exit 0; }
if [ -f "$dir/Release/llama-addon.node" ] && [ "${WEFT_LLAMA_REBUILD:-0}" != 1 ]; then
  echo "llama.cpp: found the build for this CPU cached in $dir" >&2
  choose "$dir/Release"
  exit 0
fi
if [ -f "$dir.failed" ] && [ "${WEFT_LLAMA_REBUILD:-0}" != 1 ]; then
  warn "an earlier build for this CPU failed" "$dir.failed"
  exit 0
fi

command -v docker >/dev/null && docker info >/dev/null 2>&1 || { warn "Docker is not running (the build runs in a container)"; exit 0; }
node_include=$(dirname "$(dirname "$(command -v node)")")/include/node
[ -f "$node_include/node_api.h" ] || { warn "Node's headers (node_api.h) not found in $node_include"; exit 0; }

log=$cache/$key.log
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "llama.cpp: compiling node-llama-cpp's addon for this CPU (once per CPU and version; a few minutes)" >&2
echo "llama.cpp: key $key, log $log" >&2
started=$SECONDS
build() {
  docker build -q -t "$builder" --build-arg NODE_IMAGE="$WEFT_NODE_IMAGE" -f scripts/llama/builder.Dockerfile scripts/llama
  # node-llama-cpp's llama folder (source bundle, patches, addon, CMake files) without any local build.
  mkdir -p "$work/nlc/llama" "$work/out"
  cp "$nlc/package.json" "$work/nlc/"
  (cd "$nlc/llama" && cp -r CMakeLists.txt addon cmake gitRelease.bundle llama.cpp.info.json package.json patches "$work/nlc/llama/")
  # The addon's CMakeLists finds napi.h with require('node-addon-api') from there.
  mkdir -p "$work/nlc/node_modules" && cp -r "$(dirname "$(node -p "require.resolve('node-addon-api/package.json', { paths: ['$nlc'] })")")" "$work/nlc/node_modules/"
  # The container runs as the caller so the cache stays theirs; HOME for git and cmake.
  docker run --rm --user "$(id -u):$(id -g)" -e HOME=/tmp -e JOBS="${JOBS:-$(nproc)}" -e NODE_LLAMA_CPP_DIR=/work/nlc \
    -v "$work:/work" -v "$PWD/scripts/llama:/scripts/llama:ro" -v "$node_include:/usr/local/include/node:ro" \
    --entrypoint bash "$builder" -c '
      set -euo pipefail
      mkdir -p /tmp/weft/scripts && ln -s /scripts/llama /tmp/weft/scripts/llama
      TIMEFORMAT="build-addon: %R s wall, %U s user, %S s sys"
      time bash /tmp/weft/scripts/llama/build-addon.sh
      cp -a /work/nlc/llama/localBuilds/linux-x64-weft-cpu/Release /work/out/
      cp -L "$(ldconfig -p | awk "/libgomp.so.1 / {print \$NF; exit}")" /work/out/Release/'
}
if ! build >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  mv "$log" "$dir.failed"
  warn "the build failed" "$dir.failed"
  exit 0
fi
rm -rf "$dir" && mkdir -p "$dir" && mv "$work/out/Release" "$dir/Release" && mv "$log" "$dir/build.log"
echo "$key" >"$dir/key"
echo "llama.cpp: built in $((SECONDS - started))s, cached in $dir" >&2
choose "$dir/Release"
