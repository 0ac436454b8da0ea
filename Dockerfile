# Regard in one image: the `regard` binary and the built web app, run as an unprivileged user.
# Three stages: the web app (Node), the server (Rust), and a slim runtime with neither
# toolchain. The same image runs every role of the scale-out set-up (compose.yaml):
# `regard serve`, `regard serve --no-worker`, `regard worker`, `regard admin ...`.
#
#   docker build -t regard .
#   docker run -p 8080:8080 -v regard-data:/var/lib/regard/data regard
#
# The binary targets x86-64-v3 (AVX2; .cargo/config.toml), like every current server; for an
# older CPU build with --build-arg RUSTFLAGS="-C target-cpu=x86-64".

FROM node:20-bookworm-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
RUN npm run build

FROM rust:1-bookworm AS server
ARG RUSTFLAGS=""
ENV RUSTFLAGS=${RUSTFLAGS}
WORKDIR /src
# Everything the binary embeds: help articles (docs/help), report words (web/src/locales),
# fonts, model weights, migrations.
COPY Cargo.toml Cargo.lock ./
COPY .cargo .cargo
COPY crates crates
COPY docs docs
COPY web/src/locales web/src/locales
RUN cargo build --release --locked -p regard --bin regard \
    && cp target/release/regard /usr/local/bin/regard

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates tini \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/regard regard \
    && mkdir -p /var/lib/regard/data \
    && chown -R regard:regard /var/lib/regard
COPY --from=server /usr/local/bin/regard /usr/local/bin/regard
COPY --from=web /src/web/dist /usr/share/regard/web
USER regard:regard
WORKDIR /var/lib/regard
ENV REGARD_BIND=0.0.0.0:8080 \
    REGARD_DATA_DIR=/var/lib/regard/data \
    REGARD_WEB_DIR=/usr/share/regard/web \
    REGARD_LOG_FORMAT=json
VOLUME ["/var/lib/regard/data"]
EXPOSE 8080
# tini forwards SIGTERM, so `docker stop` lets jobs in hand finish.
ENTRYPOINT ["/usr/bin/tini", "--", "regard"]
CMD ["serve"]
