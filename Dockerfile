# Multi-stage build: compile the Rust addon and the TypeScript in a full image, then run on a
# slim image as a non-root user. Data lives in the /storage volume.

FROM node:20-bookworm AS build
# The addon is compiled from source: the Rust toolchain comes from rustup.
RUN curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain stable
ENV PATH=/root/.cargo/bin:$PATH
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY Cargo.toml Cargo.lock rust-toolchain.toml ./
COPY .cargo ./.cargo
COPY crates ./crates
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The web dashboard's sources; `npm run build` bundles them into dist/dashboard, and the server into
# dist/server (the launcher main.js and the bundle server.cjs). The server's build starts the bundle
# once on 127.0.0.1 over a temporary directory: its clean exit writes V8's code cache of the bundle
# (dist/server/server.cjs.cache, readable by all). The run stage's Node must be the build stage's
# for V8 to accept it; if not, the server starts without it, only slower.
COPY dashboard ./dashboard
COPY scripts/build-in-place.mjs scripts/build-dashboard.mjs scripts/build-server.mjs ./scripts/
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim AS run
ARG QUIVER_COMMIT=""
ENV NODE_ENV=production \
    QUIVER_COMMIT=$QUIVER_COMMIT \
    QUIVER__SERVICE__HOST=0.0.0.0 \
    QUIVER__STORAGE__PATH=/storage \
    QUIVER__LOG__PRETTY=false
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/native ./native
RUN mkdir -p /storage && chown node:node /storage
USER node
VOLUME ["/storage"]
EXPOSE 6573 6574
# The launcher of the server's bundle (scripts/build-server.mjs), under the V8 flags its code cache
# was made with (src/start/node-flags.ts); dist/main.js runs the same code unbundled.
CMD ["node", "--max-semi-space-size=64", "--initial-old-space-size=128", "dist/server/main.js"]
