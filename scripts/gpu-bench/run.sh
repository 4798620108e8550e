#!/usr/bin/env bash
# The GPU benchmark, start to finish, on a bare NVIDIA machine (CUDA, cmake; no Node, no
# registry), from what scripts/gpu-bench/pack.sh put in .gpu-bench/:
#   1. builds node-llama-cpp's addon with CUDA from the llama.cpp source it ships, and
#      llama.cpp's llama-server, llama-bench and llama-batched-bench in the same CMake tree
#      (scripts/llama/build-addon.sh), for this machine's GPU;
#   2. writes a GGUF with the shapes of a 7B Q4_0 model (scripts/gguf, --shape 7b --type q4_0);
#   3. llama-bench: one stream, prompt 512 and 128 generated, flash attention off and on;
#      llama-batched-bench: 1 and 8 sequences (pure llama.cpp, no server);
#   4. node-llama-cpp in-process vs llama-server at concurrency 1 and 8 (bench/gpu/run.ts);
#   5. where node-llama-cpp's time goes with 1 and 8 sequences (bench/gpu/batching.ts).
# GPU_BENCH_STEPS picks steps 3-5 (default: llama-bench,batched,bench,batching); GPU_BENCH_UV the
# libuv pool sizes step 4 runs with (default: 1, the worker's).
# Figures go to stdout and to $OUT (default $GPU_BENCH_WORK/out). CUDA_ARCHITECTURES (default:
# this machine's GPU's compute capability) and JOBS pass through to the build.
# Each step's result is kept in $GPU_BENCH_WORK (default /tmp/weft-gpu-bench) and a second run
# skips the steps that finished: a machine lent for 10-minute commands can run it twice.
set -euo pipefail
cd "$(dirname "$0")/../.."
pack=$PWD/.gpu-bench
work=${GPU_BENCH_WORK:-/tmp/weft-gpu-bench}
out=${OUT:-$work/out}
for f in node.xz node-include.tar.xz node_modules.tar.xz llama.cpp.tar.xz bench.mjs batching.mjs; do
  [ -f "$pack/$f" ] || { echo "gpu-bench: $pack/$f missing: run scripts/gpu-bench/pack.sh first" >&2; exit 1; }
done
command -v nvidia-smi >/dev/null || { echo "gpu-bench: nvidia-smi not found: this needs an NVIDIA GPU" >&2; exit 1; }
mkdir -p "$work/node/bin" "$work/results" "$out"
step() { echo; echo "== $* ($(date -u +%T))"; }
# Runs a step unless its result file exists; the result appears only when the step succeeded.
result() {
  local name=$1
  shift
  if [ ! -s "$work/results/$name" ]; then
    "$@" >"$work/results/$name.part" 2>"$work/results/$name.err" || { tail -n 30 "$work/results/$name.err"; echo "gpu-bench: $name failed" >&2; return 1; }
    mv "$work/results/$name.part" "$work/results/$name"
  fi
  cat "$work/results/$name"
  cp "$work/results/$name" "$out/$name"
}

if [ ! -x "$work/node/bin/node" ]; then
  step unpack
  xz -dc "$pack/node.xz" >"$work/node/bin/node.part" && chmod +x "$work/node/bin/node.part"
  tar -xJf "$pack/node-include.tar.xz" -C "$work/node"
  tar -xJf "$pack/node_modules.tar.xz" -C "$work"
  mv "$work/node/bin/node.part" "$work/node/bin/node"
fi
cp "$pack/bench.mjs" "$pack/batching.mjs" "$work/"
steps=,${GPU_BENCH_STEPS:-llama-bench,batched,bench,batching},
export PATH=$work/node/bin:$PATH
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,compute_cap --format=csv,noheader | tee "$out/gpu.txt"
echo "node $(node -v), CUDA $(nvcc --version | grep -o 'release [0-9.]*'), cmake $(cmake --version | head -1 | grep -o '[0-9.]*$'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# The model is written by one core while the build uses the rest.
model=$work/bench-7b-q4_0.gguf
if [ ! -s "$model" ]; then
  (node scripts/gguf/make-test-model.mjs "$model.part" --shape 7b --type q4_0 && mv "$model.part" "$model") >"$work/model.log" 2>&1 &
  model_pid=$!
fi

nlc=$work/node_modules/node-llama-cpp
bin=$nlc/llama/localBuilds/linux-x64-weft-cuda/Release
if [ ! -x "$bin/llama-batched-bench" ]; then
  step build
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
  # CPU kernels: AVX2 only. With every layer on the GPU they hardly run, and a native build
  # can emit instructions a VM advertises but faults on (AMX here: see docs/inference.md).
  time NODE_LLAMA_CPP_DIR=$nlc LLAMA_GPU=cuda LLAMA_SOURCE_TARBALL=$pack/llama.cpp.tar.xz \
    CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES:-$cap} GGML_NATIVE=OFF \
    LLAMA_CMAKE_ARGS="-DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" \
    LLAMA_TOOLS="llama-server llama-bench llama-batched-bench" bash scripts/llama/build-addon.sh
fi
if [ -n "${model_pid:-}" ]; then
  step model
  wait "$model_pid" || { cat "$work/model.log"; exit 1; }
  cat "$work/model.log"
fi

if [[ $steps == *,llama-bench,* ]]; then
  step "llama-bench: one stream"
  result llama-bench.md "$bin/llama-bench" -m "$model" -ngl 99 -fa 0,1 -p 512 -n 128 -r 3 -o md
fi

if [[ $steps == *,batched,* ]]; then
  step "llama-batched-bench: 1 and 8 sequences, 300-token prompts, 128 tokens each"
  batched() { "$bin/llama-batched-bench" -m "$model" -ngl 99 -c 16384 -b 2048 -ub 512 -npp 300 -ntg 128 -npl 1,8 -fa "$1" | grep '^|'; }
  result batched-fa-off.md batched off
  result batched-fa-on.md batched on
fi

if [[ $steps == *,bench,* ]]; then
  step "node-llama-cpp in-process vs llama-server"
  # One libuv pool thread and a 32 MiB young generation are what the worker runs (see
  # docs/inference.md); GPU_BENCH_UV="1 4" also runs Node's default of four, for the comparison.
  bench() { UV_THREADPOOL_SIZE=$1 GPU_BENCH_MODEL=$model LLAMA_SERVER_BIN=$bin/llama-server GPU_BENCH_JSON=$work/results/bench-uv$1.json node --max-semi-space-size=32 "$work/bench.mjs"; }
  for uv in ${GPU_BENCH_UV:-1}; do
    result "bench-uv$uv.txt" bench "$uv"
    cp "$work/results/bench-uv$uv.json" "$out/"
  done
fi

if [[ $steps == *,batching,* ]]; then
  step "node-llama-cpp: decode batches and waits, LlamaChat vs sequence.evaluate"
  batching() { GPU_BENCH_MODEL=$model UV_THREADPOOL_SIZE=$1 node --max-semi-space-size=32 "$work/batching.mjs"; }
  result batching-uv1.txt batching 1
  result batching-uv4.txt batching 4
fi
