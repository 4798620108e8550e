#!/usr/bin/env bash
# First run on a new machine: writes .env with a fresh admin token (kept if one exists), then
# builds every image locally. Afterwards: `docker compose up -d`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each secret is written once and kept: the admin token, NATS's passwords for the central
# services and for inference workers (a GPU host elsewhere gets only the latter).
# Each begins with a letter: NATS reads a password from the environment as a config value, and
# one that starts like a number (`3e5…`, `-7…`) stops nats-server at start (docker/nats-auth.conf).
for name in WEFT_ADMIN_TOKEN WEFT_NATS_PASSWORD WEFT_NATS_WORKER_PASSWORD; do
  if [ ! -f .env ] || ! grep -q "^$name=" .env; then
    echo "$name=w$(node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))')" >> .env
    echo "setup: wrote a new $name to .env"
  fi
done
[ -d node_modules ] || npm install --no-audit --no-fund
bash scripts/images/build-all.sh
# The llama.cpp binary the images carry (chosen and cached by the step above, which said why) goes
# into this checkout's node_modules too, so a worker or benchmark run from here loads the same one.
release=$(bash scripts/llama/cached-build.sh 2>/dev/null)
if [ -n "$release" ]; then
  bash scripts/llama/install-addon.sh "$release" node_modules/node-llama-cpp
  echo "setup: llama.cpp compiled for this CPU serves (cached in $(dirname "$release"))"
else
  # A build of ours installed by an earlier setup would outlive the choice.
  grep -qs '"linux-x64-weft-cpu"' node_modules/node-llama-cpp/llama/lastBuild.json && rm node_modules/node-llama-cpp/llama/lastBuild.json
  echo "setup: node-llama-cpp's PREBUILT llama.cpp binary serves (why: the llama.cpp lines above)"
fi
# gVisor (docs/sandbox.md): with SANDBOX_RUNTIME=auto sandboxes run on runsc where the engine lists
# it; say whether it does, and how to add it where it does not.
if docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; then
  echo "setup: the Docker engine has gVisor (runsc): SANDBOX_RUNTIME=auto or runsc in .env runs sandboxes on it"
else
  echo "setup: the Docker engine has no gVisor runtime: sandbox containers run on runc. To add it (a second"
  echo "       kernel between each command and the host; on this engine's ptrace platform, slower starts and"
  echo "       syscalls: docs/benchmarks/2026-11-28-gvisor.md), as root:"
  echo "         apt-get install -y runsc"
  echo "         add {\"runtimes\":{\"runsc\":{\"path\":\"/usr/bin/runsc\",\"runtimeArgs\":[\"--platform=ptrace\",\"--network=host\"]}}} to /etc/docker/daemon.json, then: kill -HUP \$(pidof dockerd)"
fi
echo "setup: done. Start Weft with: docker compose up -d"
