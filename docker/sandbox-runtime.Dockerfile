# What sandboxed commands and snippets run in: python3, node, bash and lua as an unprivileged user,
# plus the warm pool's runner (weft-run).
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS node
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends python3 bash coreutils lua5.4 procps \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 sandbox && useradd --uid 10001 --gid 10001 --home-dir /tmp --shell /bin/bash sandbox \
 && mkdir -p /workspace && chown 10001:10001 /workspace
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY sandbox-runtime/weft-run /usr/local/bin/weft-run
USER 10001:10001
WORKDIR /workspace
CMD ["bash"]
