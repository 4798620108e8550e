#!/usr/bin/env bash
# `npm run test:llama-build`: the inference worker's integration tests on the llama.cpp binary
# `npm run setup` serves by default, node-llama-cpp's addon compiled for this CPU with Weft's
# patches (scripts/llama/addon-patches), where `npm test` runs them on node-llama-cpp's prebuilt
# binary. The build is cached-build.sh's: compiled once per CPU and version (about 10 minutes of
# 2 cores), then reused. It is installed into this checkout's node-llama-cpp for the run and the
# binary the checkout had is put back afterwards. Arguments go to vitest.
set -euo pipefail
cd "$(dirname "$0")/.."
nlc=node_modules/node-llama-cpp
release=$(WEFT_LLAMA_BUILD=source bash scripts/llama/cached-build.sh)
[ -n "$release" ] || { echo "test:llama-build: no build of llama.cpp for this CPU (the lines above say why)" >&2; exit 1; }

# What the checkout loads now, to put back: its last build's marker and our build's folder.
saved=$(mktemp -d)
[ -f "$nlc/llama/lastBuild.json" ] && cp "$nlc/llama/lastBuild.json" "$saved/"
[ -d "$nlc/llama/localBuilds/linux-x64-weft-cpu" ] && cp -a "$nlc/llama/localBuilds/linux-x64-weft-cpu" "$saved/"
restore() {
  rm -rf "$nlc/llama/localBuilds/linux-x64-weft-cpu" "$nlc/llama/lastBuild.json"
  [ -f "$saved/lastBuild.json" ] && cp "$saved/lastBuild.json" "$nlc/llama/"
  [ -d "$saved/linux-x64-weft-cpu" ] && cp -a "$saved/linux-x64-weft-cpu" "$nlc/llama/localBuilds/"
  rm -rf "$saved"
}
trap restore EXIT
bash scripts/llama/install-addon.sh "$release" "$nlc"

# The patched sampling must be there: its tests fail rather than skip.
WEFT_EXPECT_SAMPLE_NOW=1 npx vitest run --project integration apps/inference "$@"
