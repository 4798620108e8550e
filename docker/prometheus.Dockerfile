# Local stand-in for the official prom/prometheus image (the compose file's `monitoring` profile),
# built from Debian's package: no registry needed. Config and rules are mounted by compose.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends prometheus \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus && chown nobody:nogroup /prometheus
USER nobody
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
