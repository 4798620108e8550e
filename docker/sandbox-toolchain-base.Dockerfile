# The shared base of the toolchain images (sandbox-go, sandbox-rust, sandbox-java): Debian 13
# "trixie", whose Go, Rust and Java are current where bookworm's were years behind, with what
# every project's build needs (git, make, a C compiler and linker, curl, jq, ripgrep) and the
# sandbox user. Node is here only for the command server (weft-serve); npm and
# Python's pip are not: projects in these images build with their own toolchain. Not in the
# catalogue itself; the three images are FROM it and share its layers on disk.
ARG NODE_IMAGE=node:24-bookworm-slim
ARG TRIXIE_IMAGE=debian:trixie-slim
FROM ${NODE_IMAGE} AS node
FROM ${TRIXIE_IMAGE}
# apt-get clean: the debootstrap base keeps every downloaded .deb otherwise.
RUN apt-get update && apt-get install -y --no-install-recommends \
      git make gcc libc6-dev pkg-config ripgrep jq curl unzip ca-certificates procps bash coreutils \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 sandbox && useradd --uid 10001 --gid 10001 --home-dir /tmp --shell /bin/bash sandbox \
 && mkdir -p /workspace /cache && chown 10001:10001 /workspace /cache
COPY --from=node /usr/local/bin/node /usr/local/bin/node
# The runners (weft-run, weft-exec, weft-idle, weft-serve) are copied last by each toolchain's
# Dockerfile: they change more often than any package, and a change here would invalidate the
# toolchains' package layers above it (minutes of installing each time).
USER 10001:10001
WORKDIR /workspace
CMD ["bash"]
