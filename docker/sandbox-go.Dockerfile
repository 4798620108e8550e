# Go from Debian 13 (golang-go: Go 1.24) on the toolchain base. Modules come through the egress
# proxy from proxy.golang.org (checked against sum.golang.org) when the admin allows them.
ARG BASE_IMAGE=weft/sandbox-toolchain-base:latest
FROM ${BASE_IMAGE}
USER 0:0
RUN apt-get update && apt-get install -y --no-install-recommends golang-go \
 && apt-get clean && rm -rf /var/lib/apt/lists/* && go version
# Ahead of /usr/bin/go on the PATH: puts GOTMPDIR where test binaries may run (see the script).
COPY sandbox-go/go /usr/local/bin/go
# Module and build caches in the /cache volume (the root is read-only at run time);
# -modcacherw so the cache can be cleaned without root. `go install` puts binaries there too.
# GOTOOLCHAIN stays Go's `auto`: a go.mod asking for a newer Go gets it from proxy.golang.org.
ENV GOPATH=/cache/go GOMODCACHE=/cache/go/mod GOCACHE=/cache/go/build GOTMPDIR=/cache/go/tmp \
    GOFLAGS=-modcacherw PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/cache/go/bin
# Last: the runners change more often than the packages above (see the base's Dockerfile).
COPY sandbox-runtime/weft-run sandbox-runtime/weft-exec sandbox-runtime/weft-idle sandbox-runtime/weft-serve /usr/local/bin/
USER 10001:10001
