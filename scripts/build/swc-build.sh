#!/usr/bin/env bash
# Builds the project in the current folder (an app or lib: src/ in, dist/ out) with SWC, and leaves
# test code out of the build, and so out of the image: specs, test helper folders (src/test,
# src/testing) and fakes (fake-*.ts) stay where the tests want them, beside the code they test.
# Usage (from apps/<name> or libs/<name>): swc-build.sh [out-dir, default dist]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-dist}
test_code='**/*.spec.ts,**/*.int-spec.ts,**/*.e2e-spec.ts,**/test/**,**/testing/**,**/fake-*.ts'
# swc only adds files: one a test build or an older source left would stay and ship. Folders named
# test-* are the CLI's per-test-file builds (apps/cli/src/testing/built-cli.ts) that running tests use.
if [ -d "$out" ]; then find "$out" -mindepth 1 -maxdepth 1 ! -name 'test-*' -exec rm -rf {} +; fi
exec node "$root/node_modules/@swc/cli/bin/swc.js" src -d "$out" --strip-leading-paths --config-file "$root/.swcrc" --ignore "$test_code"
