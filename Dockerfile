# One image for every OpenPaw service: `node dist/apps/<service>/src/main.js`.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# onnxruntime-node's postinstall would fetch CUDA providers from NuGet; its CPU binary ships in the package.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund
COPY . .
# Test-only entrypoints (e.g. the ones that let a service fetch from 127.0.0.1) are not shipped.
RUN npm run build && rm -rf dist/apps/*/src/testing && npm prune --omit=dev

FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./
USER node
# A young generation of 2 MB semi-spaces (V8's default grows to 16 MB): the services' live data is small
# and short-lived, and the default costs ~40 MB of resident memory per service (memory bench, issue 23).
# The services every step passes through start with 4 MB (YOUNG_GENERATION_MIB, deploy/src/topology.ts).
ENV NODE_ENV=production HOST=0.0.0.0 NODE_OPTIONS=--max-semi-space-size=2
CMD ["node", "dist/apps/gateway/src/main.js"]
