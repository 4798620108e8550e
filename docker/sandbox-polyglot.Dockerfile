# sandbox-dev plus Go and Rust (Debian's golang-go and cargo/rustc, Go 1.19 and Rust 1.63):
# 0.92 GB more, so it is built only with WEFT_IMAGES_POLYGLOT=1, for teams that need Go or Rust.
ARG DEV_IMAGE=weft/sandbox-dev:latest
FROM ${DEV_IMAGE}
USER 0:0
RUN apt-get update && apt-get install -y --no-install-recommends golang-go cargo rustc \
 && apt-get clean && rm -rf /var/lib/apt/lists/*
# Module and build caches in the /cache volume; -modcacherw so the cache can be cleaned without
# root. Binaries from `go install` and `cargo install` land there too.
ENV GOPATH=/cache/go GOMODCACHE=/cache/go/mod GOCACHE=/cache/go/build GOFLAGS=-modcacherw \
    CARGO_HOME=/cache/cargo \
    PATH=$PATH:/cache/go/bin:/cache/cargo/bin
USER 10001:10001
