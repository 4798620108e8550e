# Rust from Debian 13 (rustc and cargo: Rust 1.85) on the toolchain base, whose gcc is the linker.
# Crates come through the egress proxy from crates.io when the admin allows it.
ARG BASE_IMAGE=weft/sandbox-toolchain-base:latest
FROM ${BASE_IMAGE}
USER 0:0
RUN apt-get update && apt-get install -y --no-install-recommends rustc cargo \
 && apt-get clean && rm -rf /var/lib/apt/lists/* && rustc --version && cargo --version
# The registry index, downloaded crates and `cargo install`'s binaries in the /cache volume.
# A project's target/ stays in the workspace, as on a developer's machine.
ENV CARGO_HOME=/cache/cargo \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/cache/cargo/bin
# Last: the runners change more often than the packages above (see the base's Dockerfile).
COPY sandbox-runtime/weft-run sandbox-runtime/weft-exec sandbox-runtime/weft-idle sandbox-runtime/weft-serve /usr/local/bin/
USER 10001:10001
