# Image names shared by the build script, the compose file and the tests. The defaults are the
# official names, so a connected host pulls them and this machine finds its local builds.
export WEFT_BASE_IMAGE=${WEFT_BASE_IMAGE:-debian:bookworm-slim}
export WEFT_NODE_IMAGE=${WEFT_NODE_IMAGE:-node:24-bookworm-slim}
export WEFT_REDIS_IMAGE=${WEFT_REDIS_IMAGE:-redis:7.0-bookworm}
export WEFT_NATS_IMAGE=${WEFT_NATS_IMAGE:-nats:2.9-alpine}
export WEFT_SANDBOX_IMAGE=${WEFT_SANDBOX_IMAGE:-weft/sandbox-runtime:latest}
export WEFT_SANDBOX_DEV_IMAGE=${WEFT_SANDBOX_DEV_IMAGE:-weft/sandbox-dev:latest}
# The toolchain images (Debian 13's Go, Rust, Java with Maven) and the base they share; skipped
# with WEFT_IMAGES_TOOLCHAINS=0.
export WEFT_TRIXIE_IMAGE=${WEFT_TRIXIE_IMAGE:-debian:trixie-slim}
export WEFT_TOOLCHAIN_BASE_IMAGE=${WEFT_TOOLCHAIN_BASE_IMAGE:-weft/sandbox-toolchain-base:latest}
export WEFT_SANDBOX_GO_IMAGE=${WEFT_SANDBOX_GO_IMAGE:-weft/sandbox-go:latest}
export WEFT_SANDBOX_RUST_IMAGE=${WEFT_SANDBOX_RUST_IMAGE:-weft/sandbox-rust:latest}
export WEFT_SANDBOX_JAVA_IMAGE=${WEFT_SANDBOX_JAVA_IMAGE:-weft/sandbox-java:latest}
export WEFT_PROXY_IMAGE=${WEFT_PROXY_IMAGE:-weft/egress-proxy:latest}
export WEFT_APP_IMAGE=${WEFT_APP_IMAGE:-weft/app:latest}
# A simulated Docker Swarm node (Debian's docker.io) for the deploy/swarm tests.
export WEFT_SWARM_NODE_IMAGE=${WEFT_SWARM_NODE_IMAGE:-weft/swarm-node:latest}
# Prometheus for the compose file's `monitoring` profile: the official image, or Debian's package.
export WEFT_PROMETHEUS_IMAGE=${WEFT_PROMETHEUS_IMAGE:-prom/prometheus:v2.42.0}
# NVIDIA's CUDA 13 runtime (cudart, cuBLAS) for the GPU inference image; node-llama-cpp 3.22's
# CUDA prebuilt is compiled with CUDA 13.1. The GPU image is built locally by images:cuda.
export WEFT_CUDA_IMAGE=${WEFT_CUDA_IMAGE:-nvidia/cuda:13.1.0-runtime-ubuntu24.04}
export WEFT_INFERENCE_CUDA_IMAGE=${WEFT_INFERENCE_CUDA_IMAGE:-weft/inference-cuda:latest}
