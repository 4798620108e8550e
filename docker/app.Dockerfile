# One image for gateway, inference, tools and sandbox; the compose file chooses the command.
# Its context is staged by scripts/images/stage-app.sh (built code + production node_modules).
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE}
# ripgrep backs the search_files tool; git is for importing workspaces from git URLs.
RUN apt-get update && apt-get install -y --no-install-recommends ripgrep git \
 && rm -rf /var/lib/apt/lists/*
RUN groupadd --gid 10001 weft && useradd --uid 10001 --gid 10001 --no-create-home weft \
 && mkdir -p /var/lib/weft/workspaces /var/lib/weft/models /var/lib/weft/kv-state \
 && chown -R 10001:10001 /var/lib/weft
WORKDIR /app
COPY --chown=0:0 . /app
RUN mv /app/opt-models /opt/weft-models && mkdir -p /opt/weft && mv /opt/weft-models /opt/weft/models \
 && mv /app/etc/weft /etc/weft && rm -rf /app/etc /app/Dockerfile
ENV NODE_ENV=production MODELS_CONFIG=/etc/weft/models.json MODELS_DIR=/var/lib/weft/models
USER 10001:10001
CMD ["node", "apps/gateway/dist/main.js"]
