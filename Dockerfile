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
    XDG_CACHE_HOME=/opt/servelint/cache
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --disable-pip-version-check --no-index \
        --find-links=/wheels 'servelint[kube]' \
    && rm -rf /wheels \
    && groupadd --system --gid 10001 servelint \
    && useradd --system --uid 10001 --gid 10001 --no-create-home \
        --shell /usr/sbin/nologin servelint \
    && install -d -o 10001 -g 10001 -m 0700 /opt/servelint/cache
# A numeric user, so that Kubernetes can enforce runAsNonRoot without looking it up.
USER 10001:10001
# The built-in policies are compiled once, here, into servelint's policy cache (README,
# "Performance"), as the user that runs servelint: a cache folder is used only by its
# owner (docs/security.md). Every run of the image (a PreSync Job per sync) reads them
# from it; the key is the installed wheel's record, which copying the image keeps.
RUN servelint rules > /dev/null
WORKDIR /work
ENTRYPOINT ["servelint"]
CMD ["--help"]
