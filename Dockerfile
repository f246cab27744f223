# vidrouter's image: the CLI as entrypoint, `serve` by default, data in /data.
#
#   docker build -t vidrouter .
#   docker run -p 8000:8000 -v vidrouter-data:/data vidrouter
#   docker run -v vidrouter-data:/data vidrouter keys create --name me
#
# PYTHON_IMAGE: any Debian-based image with python3 (3.11+), python3-venv and
# ca-certificates. deploy/ca-certificates/*.crt are trusted while building (pip) and at run
# time (calls to providers): for networks behind a TLS-intercepting proxy.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
COPY deploy/ca-certificates/ /tmp/ca-certificates/
RUN cp /tmp/ca-certificates/*.crt /usr/local/share/ca-certificates/ 2>/dev/null || true; \
    update-ca-certificates >/dev/null
# The dependencies first, from the lock alone: this layer is reused until the lock changes.
COPY requirements.lock /tmp/requirements.lock
RUN python3 -m venv /opt/vidrouter \
    && /opt/vidrouter/bin/pip install --require-hashes --no-deps -r /tmp/requirements.lock
# The project as a wheel, built offline with the pinned build backend.
COPY pyproject.toml README.md LICENSE /src/
COPY src /src/src
RUN /opt/vidrouter/bin/pip wheel --no-deps --no-build-isolation --no-index --wheel-dir /wheels /src

FROM ${PYTHON_IMAGE}
COPY deploy/ca-certificates/ /tmp/ca-certificates/
RUN cp /tmp/ca-certificates/*.crt /usr/local/share/ca-certificates/ 2>/dev/null || true; \
    update-ca-certificates >/dev/null; rm -rf /tmp/ca-certificates \
    && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home vidrouter \
    && mkdir /data && chown 10001:10001 /data
# The dependencies, then the project: a change of the source alone rebuilds only the last,
# small layer.
COPY --from=build /opt/vidrouter /opt/vidrouter
# Every HTTPS client in the process (httpx with certifi's bundle, the object store's) trusts
# the system's bundle, which holds the certificates added above.
RUN ln -sf /etc/ssl/certs/ca-certificates.crt \
    "$(/opt/vidrouter/bin/python -c 'import certifi; print(certifi.where())')"
COPY --from=build /wheels /tmp/wheels
RUN /opt/vidrouter/bin/pip install --no-deps --no-index --no-cache-dir \
    --disable-pip-version-check /tmp/wheels/*.whl && rm -rf /tmp/wheels
ENV PATH=/opt/vidrouter/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    VIDROUTER_DATA_DIR=/data \
    VIDROUTER_HOST=0.0.0.0 \
    VIDROUTER_PORT=8000
USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["python", "-c", \
    "import os, urllib.request as r; r.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('VIDROUTER_PORT', '8000'), timeout=4)"]
# SIGTERM (docker stop): requests in flight finish, work in hand is handed back, exit 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["vidrouter"]
CMD ["serve"]
