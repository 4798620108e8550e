#!/usr/bin/env bash
# Builds the NVIDIA inference image (weft/inference-cuda) on NVIDIA's CUDA 13 runtime image:
# the app image's code (run `npm run images` first), plus node-llama-cpp's CUDA prebuilt at the
# version the lock file pins. The base comes from WEFT_CUDA_IMAGE; a connected host pulls it, a
# host without a registry must load it first (`docker load` of a saved copy).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/images/names.sh
export DOCKER_BUILDKIT=0   # Debian's engine ships without buildx

for image in "$WEFT_APP_IMAGE" "$WEFT_NODE_IMAGE"; do
  docker image inspect "$image" >/dev/null 2>&1 || { echo "images:cuda: $image not found; run npm run images first" >&2; exit 1; }
done
if ! docker image inspect "$WEFT_CUDA_IMAGE" >/dev/null 2>&1 && ! docker pull "$WEFT_CUDA_IMAGE"; then
  cat >&2 <<MSG
images:cuda: the CUDA base image $WEFT_CUDA_IMAGE is not here and cannot be pulled.
  On a host with a registry: docker pull $WEFT_CUDA_IMAGE
  Without one: on a connected machine, docker save $WEFT_CUDA_IMAGE | gzip > cuda.tar.gz,
  then here: docker load < cuda.tar.gz. Another CUDA 13 runtime image works too:
  WEFT_CUDA_IMAGE=<name> npm run images:cuda
MSG
  exit 2
fi

ctx=$(mktemp -d /tmp/weft-cuda-image.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
bash scripts/images/stage-inference-cuda.sh "$ctx"
docker build -q -t "$WEFT_INFERENCE_CUDA_IMAGE" --build-arg CUDA_IMAGE="$WEFT_CUDA_IMAGE" \
  --build-arg APP_IMAGE="$WEFT_APP_IMAGE" --build-arg NODE_IMAGE="$WEFT_NODE_IMAGE" "$ctx"
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' "$WEFT_INFERENCE_CUDA_IMAGE"
