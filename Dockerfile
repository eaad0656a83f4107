# The club rating bot as a container image (docs/deploy.md says how to run it).
#
# Two stages on one pinned Python base: the builder has a C compiler and builds the virtual
# environment in /opt/clubrating (the locked dependencies, then the project itself with its
# rating loop compiled by mypyc); the final image gets that environment and nothing of the
# compiler. Built for linux/amd64 and linux/arm64: every locked dependency has wheels for both.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

FROM ${PYTHON_IMAGE} AS builder

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

# gcc for mypyc's C extension (setup.py; optional, the same loop runs interpreted without it),
# with the C library's headers of exactly the base image's C library
RUN apt-get update \
    && apt-get install --yes --no-install-recommends \
        gcc=4:12.2.0-3 \
        "libc6-dev=$(dpkg-query --show --showformat='${Version}' libc6)" \
    && rm -rf /var/lib/apt/lists/*

RUN python -m venv /opt/clubrating

# The dependencies first, on their own layer: only a new lock file builds it again.
# Wheels only, each checked against the lock's hashes.
COPY requirements.lock /tmp/requirements.lock
RUN /opt/clubrating/bin/pip install --no-cache-dir --require-hashes --only-binary=:all: \
        -r /tmp/requirements.lock

# Then the project, without dependencies (they are all above). .dockerignore keeps the
# checkout's databases, secrets, virtual environment and caches out of /src.
COPY . /src
RUN /opt/clubrating/bin/pip install --no-cache-dir --no-deps /src


FROM ${PYTHON_IMAGE}

ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="clubrating" \
      org.opencontainers.image.description="Self-hosted Discord and Telegram bot that keeps a club's rating list" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="MIT"

# tini as PID 1 (it passes SIGTERM on and reaps children); a font with Japanese glyphs for the
# charts; a system user and group 10001 without a home; /data owned by it, so that a new named
# volume mounted there starts out writable by the bot alone
RUN apt-get update \
    && apt-get install --yes --no-install-recommends \
        tini=0.19.0-1+b3 \
        fonts-ipafont-gothic=00303-23 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 clubrating \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin clubrating \
    && install --directory --owner=10001 --group=10001 --mode=0700 /data

# The environment as the builder made it, owned by root: the bot cannot change its own code.
COPY --from=builder /opt/clubrating /opt/clubrating

ENV PATH=/opt/clubrating/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CLUBRATING_DATA_DIR=/data

WORKDIR /data
USER 10001:10001
VOLUME /data
# Telegram's webhook, when TELEGRAM_WEBHOOK_URL is set (TELEGRAM_WEBHOOK_LISTEN's default port)
EXPOSE 8443

STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["clubrating", "healthcheck"]
ENTRYPOINT ["tini", "--", "clubrating"]
CMD ["run"]
