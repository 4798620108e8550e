# Weft's egress proxy: Debian's squid as an allow-listing forward proxy for sandbox runs that may
# install dependencies. The allow list comes from PROXY_ALLOWED_HOSTS at start (weft-proxy-start).
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends squid \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /etc/squid/errors && cp /usr/share/squid/errors/templates/* /etc/squid/errors/
COPY egress-proxy/squid.conf /etc/squid/squid.conf
COPY egress-proxy/errors/ /etc/squid/errors/
COPY egress-proxy/weft-proxy-start /usr/local/bin/weft-proxy-start
# Squid's own unprivileged user. It writes only under /tmp: Docker's tmpfs mounts are root's
# except on /tmp, so with a read-only root `--tmpfs /tmp` is all it needs.
USER proxy
EXPOSE 3128
ENTRYPOINT ["weft-proxy-start"]
