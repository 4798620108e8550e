# A simulated Swarm node for tests: Debian's own Docker engine (docker.io) inside a container
# (Docker-in-Docker). Built FROM the project's Debian base, so nothing is pulled; the images a
# stack needs are loaded into each node with `docker save | docker load`.
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
RUN apt-get update && apt-get install -y --no-install-recommends docker.io iptables iproute2 ca-certificates procps \
 && rm -rf /var/lib/apt/lists/*
# /var/lib/docker is a volume: the inner engine's overlay2 needs a real filesystem under it, not
# the outer container's overlay.
VOLUME /var/lib/docker
# Run with every capability the host grants, --cgroupns private, and seccomp, AppArmor and the
# masked /proc paths off (test/deploy/support/swarm-nodes.ts). The engine then needs /sys and its
# own cgroup hierarchies writable: mount them afresh (Docker mounts them read-only unless
# --privileged, which some hosts refuse). WEFT_SWARM_RESET=1 forgets the swarm an earlier run of a
# kept /var/lib/docker joined. No TCP socket: tests drive a node with `docker exec`.
ENTRYPOINT ["sh", "-c", "set -e; [ \"${WEFT_SWARM_RESET:-0}\" = 1 ] && rm -rf /var/lib/docker/swarm; mount -o remount,rw /sys; for d in /sys/fs/cgroup/*; do s=${d##*/}; o=$s; [ $s = systemd ] && o=none,name=systemd; umount $d; mount -t cgroup -o $o cgroup $d; done; exec dockerd --host=unix:///var/run/docker.sock"]
