# The collector as a container image. Two stages: the first compiles TypeScript and packs the package
# exactly as `npm publish` would; the second unpacks that tarball and installs its production dependencies
# at the versions of package-lock.json (`npm ci --omit=dev`: the image is reproducible, no version floats),
# so the image carries no compiler, tests or dev tools, and no file the package does not publish.
# test/e2e/packed-install.e2e.test.ts performs the second stage's steps on the host (pack, unpack, locked
# production install, run as a non-root user) in `npm test`.
#
#   docker build -t otelcol-azure-eventhub:0.1.0 .
#   docker run --rm --read-only -v "$PWD/config:/etc/otelcol:ro" otelcol-azure-eventhub:0.1.0
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm run build && mkdir /pkg && npm pack --ignore-scripts --pack-destination /pkg

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /opt/otelcol
COPY --from=build /pkg/ /tmp/pkg/
# The package's files go where `npm install` of the tarball would put them, so the entry point's path is the
# one earlier images had: commands and manifests that name it keep working.
ARG APP=/opt/otelcol/node_modules/otelcol-azure-eventhub
COPY --from=build /src/package-lock.json ${APP}/
RUN tar -xzf /tmp/pkg/*.tgz -C ${APP} --strip-components=1 --no-same-owner \
  && cd ${APP} && npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf /tmp/pkg /root/.npm
# A numeric user, so Kubernetes' runAsNonRoot can verify it without /etc/passwd. Nothing is written
# outside mounted paths (file exporter output, directory dead-letter store), so --read-only works.
USER 10001:10001
# 13133 health_check, 8888 self-metrics, 55679 zpages (each only when configured).
EXPOSE 13133 8888 55679
# node is PID 1: the CLI handles SIGTERM/SIGINT itself (graceful hand-off, final checkpoints); a second
# signal forces the exit. Kubernetes' terminationGracePeriodSeconds must exceed shutdown_timeout.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/opt/otelcol/node_modules/otelcol-azure-eventhub/bin/otelcol-azure-eventhub.js"]
CMD ["--config", "/etc/otelcol/config.yaml"]
