# What sandboxed commands and snippets run in: python3, node, bash and lua as an unprivileged user,
# plus the warm pool's runner (weft-run) and a session container's weft-exec and weft-idle.
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS node
# node-server, execute-only, runs the pooled container's command server (weft-serve, PID 1): a
# process running a binary its user cannot read is non-dumpable, so a snippet cannot ptrace it or
# open its /proc files (mem, pipes, environ). `node` stays readable: gVisor (runsc) cannot execute
# a file it cannot read, and under it the pool is off (docs/sandbox.md: gVisor).
RUN cp /usr/local/bin/node /usr/local/bin/node-server && chmod 0711 /usr/local/bin/node-server
FROM debian:bookworm-slim
# /cache: the per-user cache volume takes its owner from the first image that mounts it, so every
# sandbox image has it owned by 10001. No package manager here sets a cache there (no pip, no npm).
RUN apt-get update && apt-get install -y --no-install-recommends python3 bash coreutils lua5.4 procps \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 sandbox && useradd --uid 10001 --gid 10001 --home-dir /tmp --shell /bin/bash sandbox \
 && mkdir -p /workspace /cache && chown 10001:10001 /workspace /cache
COPY --from=node /usr/local/bin/node /usr/local/bin/node-server /usr/local/bin/
COPY sandbox-runtime/weft-run sandbox-runtime/weft-exec sandbox-runtime/weft-idle sandbox-runtime/weft-serve /usr/local/bin/
USER 10001:10001
WORKDIR /workspace
CMD ["bash"]
