#!/usr/bin/env bash
# First run on a new machine: writes .env with a fresh admin token (kept if one exists), then
# builds every image locally. Afterwards: `docker compose up -d`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f .env ] || ! grep -q '^WEFT_ADMIN_TOKEN=' .env; then
  echo "WEFT_ADMIN_TOKEN=$(node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))')" >> .env
  echo "setup: wrote a new WEFT_ADMIN_TOKEN to .env"
fi
[ -d node_modules ] || npm install --no-audit --no-fund
bash scripts/images/build-all.sh
echo "setup: done. Start Weft with: docker compose up -d"
