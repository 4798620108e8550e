#!/usr/bin/env bash
# Runs inside `docker build` of the CUDA inference image: fails the build, naming what is
# missing, unless Node starts, node-llama-cpp and its CUDA prebuilt have the same version, and
# every library the prebuilt links resolves except the driver's libcuda.so.1 (mounted at run time).
set -euo pipefail
cd /app
node --version
node -e '
  const core = require("./node_modules/node-llama-cpp/package.json").version;
  const cuda = require("./node_modules/@node-llama-cpp/linux-x64-cuda/package.json").version;
  if (core !== cuda) { console.error(`node-llama-cpp ${core} but @node-llama-cpp/linux-x64-cuda ${cuda}`); process.exit(1); }
  console.log(`node-llama-cpp ${core} with its CUDA prebuilt`);'
bins=/app/node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda
missing=$(for lib in "$bins"/libggml-cuda.so "$bins"/llama-addon.node; do ldd "$lib"; done \
  | awk '/not found/ {print $1}' | grep -v '^libcuda\.so\.1$' | sort -u || true)
if [ -n "$missing" ]; then
  echo "The base image lacks libraries the CUDA prebuilt needs: $(echo $missing)." >&2
  echo "Use a CUDA 13 *runtime* image (nvidia/cuda:13.x-runtime-ubuntu24.04), not a base one." >&2
  exit 1
fi
echo "CUDA libraries: $(ldconfig -p | grep -oE 'lib(cudart|cublas|cublasLt)\.so\.13' | sort -u | tr '\n' ' ')"
