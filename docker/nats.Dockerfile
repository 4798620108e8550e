# Local stand-in for the official nats image, built from Debian's package. Same entrypoint as the
# official one, so `command:` arguments mean the same; wget for the health check.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends nats-server wget \
 && rm -rf /var/lib/apt/lists/*
EXPOSE 4222 8222
ENTRYPOINT ["nats-server"]
CMD ["--http_port", "8222"]
