# The servelint image: `servelint` as the entry point, built-in policies and schemas
# inside the installed wheel (linter/_data), running as an unprivileged user.
#
#   docker build -t servelint .
#   docker run --rm -v "$PWD:/work:ro" servelint lint charts/vllm/values-prod.yaml
#
# No container engine runs where servelint is developed and tested, so this file is never
# built there; tests/test_container_image.py checks its instructions as text. Keep it
# minimal.

# Build stage: the wheel of servelint and of every dependency, so that the runtime stage
# installs offline and carries no build tools.
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
COPY . .
# With the `kube` extra: the image also runs `drift --kube` (deploy/drift-scan).
RUN pip wheel --no-cache-dir --disable-pip-version-check --wheel-dir /wheels '.[kube]'

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    XDG_CACHE_HOME=/opt/servelint/cache \
    SERVELINT_SYSTEM_CACHE=/opt/servelint/system-cache
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --disable-pip-version-check --no-index \
        --find-links=/wheels 'servelint[kube]' \
    && rm -rf /wheels \
    && groupadd --system --gid 10001 servelint \
    && useradd --system --uid 10001 --gid 10001 --no-create-home \
        --shell /usr/sbin/nologin servelint \
    && install -d -o 10001 -g 10001 -m 0700 /opt/servelint/cache
# The built-in policies are compiled once, here, into the system cache (README,
# "Performance"): root's, readable by every user and writable by none, which is the one
# cache folder servelint trusts without owning it (docs/security.md). So every run of the
# image reads them from it, as 10001 (a PreSync Job per sync) or as whatever user a
# cluster gives it (Argo CD's plugin sidecar runs as 999); the key is the installed
# wheel's record, which copying the image keeps. XDG_CACHE_HOME is the running user's
# own, for what that user's runs add (a repository's policies, chart readings).
RUN XDG_CACHE_HOME=/opt/servelint/system-cache servelint rules > /dev/null \
    && chmod -R a+rX,go-w /opt/servelint/system-cache
# A numeric user, so that Kubernetes can enforce runAsNonRoot without looking it up.
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["servelint"]
CMD ["--help"]
