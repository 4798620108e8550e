# The toolchain that compiles node-llama-cpp's addon for the host's CPU (scripts/llama/cached-build.sh):
# the app image's base, so the binary links the glibc, libstdc++ and libgomp the image has.
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends cmake make g++ git libgomp1 patch \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
