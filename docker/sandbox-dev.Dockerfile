# The development toolchain for sandbox runs: what an agent needs to build and test a project in
# C/C++, Python and Node, with the same runners and user as sandbox-runtime. Package managers
# reach their registries only through the egress proxy and cache under /cache, where the sandbox
# mounts a per-user volume. Go and Rust would more than double it (+0.92 GB on 0.71 GB): they
# are in sandbox-polyglot.Dockerfile, built on this one.
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS node
FROM debian:bookworm-slim
# apt-get clean: the debootstrap base of scripts/images/base.sh, unlike the official image,
# keeps every downloaded .deb (180 MB in this image).
RUN apt-get update && apt-get install -y --no-install-recommends \
      git make gcc g++ libc6-dev pkg-config python3 python3-pip python3-venv python3-pytest \
      ripgrep jq curl unzip ca-certificates procps bash coreutils lua5.4 \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 sandbox && useradd --uid 10001 --gid 10001 --home-dir /tmp --shell /bin/bash sandbox \
 && mkdir -p /workspace /cache && chown 10001:10001 /workspace /cache
COPY --from=node /usr/local/bin/node /usr/local/bin/node
COPY --from=node /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/npm
COPY --from=node /usr/local/lib/node_modules/corepack /usr/local/lib/node_modules/corepack
# corepack enable adds the yarn and pnpm shims; the package managers themselves are fetched on
# first use into COREPACK_HOME.
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && ln -s ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
 && corepack enable --install-directory /usr/local/bin
COPY sandbox-runtime/weft-run sandbox-runtime/weft-exec sandbox-runtime/weft-idle sandbox-runtime/weft-serve /usr/local/bin/
# The root is read-only at run time: every tool caches in the /cache volume (Docker gives a new
# named volume the directory's owner, 10001). No prompts or update checks: nobody answers them.
# NODE_USE_ENV_PROXY: Node's own fetch and http (corepack uses fetch) honour HTTPS_PROXY only then.
ENV npm_config_cache=/cache/npm npm_config_update_notifier=false npm_config_fund=false \
    npm_config_audit=false \
    PIP_CACHE_DIR=/cache/pip PIP_DISABLE_PIP_VERSION_CHECK=1 \
    COREPACK_HOME=/cache/corepack COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
    NODE_USE_ENV_PROXY=1
USER 10001:10001
WORKDIR /workspace
CMD ["bash"]
