#!/usr/bin/env bash
# Prints the path of a llama-server built from the llama.cpp source node-llama-cpp ships, for this
# CPU, building it the first time (scripts/llama-server/build.sh, ~10 minutes on 2 cores). Cached
# outside the repository beside the addon's builds, keyed by llama.cpp release, this recipe and
# the CPU's flags, so a fresh clone on the same host finds it: `npm run bench:inference` calls
# this when LLAMA_SERVER_BIN is not set. Progress and errors go to stderr; on failure it prints
# nothing and exits 1.
#   WEFT_LLAMA_CACHE   cache folder (default ${XDG_CACHE_HOME:-~/.cache}/weft/llama)
set -euo pipefail
cd "$(dirname "$0")/../.."
info=node_modules/node-llama-cpp/llama/llama.cpp.info.json
[ -f "$info" ] || { echo "llama-server: $info not found; run npm install first" >&2; exit 1; }
release=$(node -p "require('./$info').tag")
recipe=$(sha256sum scripts/llama-server/build.sh | cut -c1-8)
flags=$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2 | tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
cpu=$(printf '%s' "$flags" | sha256sum | cut -c1-8)
cache=${WEFT_LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/weft/llama}
dir=$cache/llama-server-$release-r$recipe-cpu$cpu
bin=$dir/bin/llama-server
mkdir -p "$cache"
# One build at a time; a second caller waits for the first one's binary.
exec 9>"$dir.lock"
flock 9
if [ ! -x "$bin" ]; then
  echo "llama-server: none cached for this CPU; building it once into $dir (about 10 minutes on 2 cores)" >&2
  if ! LLAMA_SERVER_DIR=$dir bash scripts/llama-server/build.sh >&2; then
    echo "llama-server: the build failed (logs in $dir)" >&2
    exit 1
  fi
fi
echo "$bin"
