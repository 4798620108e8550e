# One image for gateway, inference, tools and sandbox; the compose file chooses the command.
# Its context is staged by scripts/images/stage-app.sh (built code + production node_modules).
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE}
# ripgrep backs the search_files tool; git is for importing workspaces from git URLs. git brings
# perl, and perl its C headers for compiling modules: nothing here compiles them (and one,
# fakesdio.h, is what test/app-image.int-spec.ts's search for fakes would find).
RUN apt-get update && apt-get install -y --no-install-recommends ripgrep git \
 && rm -rf /var/lib/apt/lists/* /usr/lib/x86_64-linux-gnu/perl/*/CORE/*.h
RUN groupadd --gid 10001 weft && useradd --uid 10001 --gid 10001 --no-create-home weft \
 && mkdir -p /var/lib/weft/workspaces /var/lib/weft/models /var/lib/weft/kv-state /var/lib/weft/backup \
 && chown -R 10001:10001 /var/lib/weft
WORKDIR /app
COPY --chown=0:0 . /app
# LLAMA_SOURCE_BUILD=1 (WEFT_LLAMA_SOURCE_BUILD=1 npm run images): compile node-llama-cpp's addon
# from the llama.cpp source it ships, for this machine's CPU; the worker loads it instead of the
# prebuilt (LLAMA_BINARY=auto). The compiler is installed and removed in the same layer.
ARG LLAMA_SOURCE_BUILD=0
ARG LLAMA_JOBS=2
RUN if [ "$LLAMA_SOURCE_BUILD" = 1 ]; then \
      apt-get update && apt-get install -y --no-install-recommends cmake make g++ patch libgomp1 \
      && mv /app/llama-build/include/node /usr/local/include/node \
      && JOBS="$LLAMA_JOBS" NODE_LLAMA_CPP_DIR=/app/node_modules/node-llama-cpp bash /app/llama-build/scripts/llama/build-addon.sh \
      && rm -rf /app/node_modules/node-llama-cpp/llama/weft-build* /app/node_modules/node-llama-cpp/llama/llama.cpp /usr/local/include/node \
      && apt-get purge -y --auto-remove cmake make g++ patch && apt-get clean && rm -rf /var/lib/apt/lists/*; \
    fi; rm -rf /app/llama-build
RUN mv /app/opt-models /opt/weft-models && mkdir -p /opt/weft && mv /opt/weft-models /opt/weft/models \
 && mv /app/etc/weft /etc/weft && rm -rf /app/etc /app/Dockerfile
ENV NODE_ENV=production MODELS_CONFIG=/etc/weft/models.json MODELS_DIR=/var/lib/weft/models
USER 10001:10001
CMD ["node", "apps/gateway/dist/main.js"]
