# The bot in one image: `docker build -t hideseek-chat .`, then `docker compose up` (compose.yaml)
# or `docker run --env-file .env -v hideseek-data:/data hideseek-chat run` (or `webhook`).
# Dependencies are pinned by constraints.txt, the versions the tests ran with.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY constraints.txt pyproject.toml setup.py MANIFEST.in README.md ./
COPY hideseek_chat ./hideseek_chat
COPY migrations ./migrations
COPY locales ./locales
# Every wheel it needs is prebuilt for linux (shapely, pyproj, osmium, psycopg[binary], Pillow):
# no compiler in the image.
RUN python -m venv /opt/venv \
    && /opt/venv/bin/pip install --constraint constraints.txt . \
    && /opt/venv/bin/hideseek-chat --help >/dev/null

FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HIDESEEK_DATA_DIR=/data \
    PORT=8080
# A user of its own, without a shell or a password; it owns only the data folder.
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin hideseek \
    && mkdir -p /data \
    && chown hideseek:hideseek /data
COPY --from=build /opt/venv /opt/venv
USER hideseek
WORKDIR /data
# The SQLite file (when DATABASE_URL is unset) and the map tiles' cache.
VOLUME ["/data"]
EXPOSE 8080
# /healthz on the bot's web server (the webhook's; long polling serves it when PORT is set).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request as u; u.urlopen('http://127.0.0.1:${PORT}/healthz', timeout=4)" || exit 1
# Docker's SIGTERM reaches the bot itself (exec form): it finishes the updates in hand and exits.
STOPSIGNAL SIGTERM
ENTRYPOINT ["hideseek-chat"]
CMD ["run"]
