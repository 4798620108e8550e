# The inference worker for NVIDIA GPUs: the app image's code and dependencies, Node, and
# node-llama-cpp's CUDA 13 prebuilt (@node-llama-cpp/linux-x64-cuda) on NVIDIA's CUDA runtime
# image, which carries the libraries that prebuilt links: libcudart.so.13, libcublas.so.13 and
# libcublasLt.so.13. libcuda.so.1 is the driver's: the NVIDIA container toolkit mounts it at run
# time. Built by scripts/images/build-cuda.sh (`npm run images:cuda`), which stages the context.
ARG CUDA_IMAGE=nvidia/cuda:13.1.0-runtime-ubuntu24.04
ARG APP_IMAGE=weft/app:latest
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS node
FROM ${APP_IMAGE} AS app
FROM ${CUDA_IMAGE}
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=app /app /app
COPY --from=app /etc/weft /etc/weft
COPY --from=app /opt/weft /opt/weft
COPY node_modules/@node-llama-cpp/linux-x64-cuda /app/node_modules/@node-llama-cpp/linux-x64-cuda
COPY check-cuda-image.sh /usr/local/bin/weft-check-cuda-image
RUN groupadd --gid 10001 weft && useradd --uid 10001 --gid 10001 --no-create-home weft \
 && mkdir -p /var/lib/weft/models && chown -R 10001:10001 /var/lib/weft \
 && weft-check-cuda-image
ENV NODE_ENV=production MODELS_CONFIG=/etc/weft/models.json MODELS_DIR=/var/lib/weft/models \
    CUDA_CACHE_PATH=/tmp/cuda-cache
USER 10001:10001
# A 32 MiB young generation (docs/inference.md, "Node's young generation").
CMD ["node", "--max-semi-space-size=32", "apps/inference/dist/main.js"]
