#!/usr/bin/env node
// `npm run build:server`: bundles the compiled server (dist/main.js and every module it imports,
// dependencies included) into dist/server/main.js, which `npm start` and the Docker image run,
// plus a chunk beside it for each part imported only when used (the gRPC door's server, cluster
// mode). Node resolves, reads and compiles each of the ~1,200 files a plain start loads one by
// one; a bundle halves the time from spawn to listening (docs/architecture.md §21).
//
// Left outside the bundle, loaded from node_modules at run time as before: the native parts
// (the addon's loader, classic-level), pino, whose transports start worker threads from their
// own files, and grpc-js with @grpc/reflection, which read .proto files beside their modules. The bundle sits two directories below the project root, like every dist/
// module that reads a file by a path relative to itself (the addon, the dashboard).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildInPlace } from './build-in-place.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const serverBundle = join(root, 'dist', 'server', 'main.js');

/** Bundles into dist/server through a scratch directory (build-in-place.mjs). */
export async function buildServer() {
  await buildInPlace(dirname(serverBundle), 'server', async (scratch) => {
    await build({
      entryPoints: [join(root, 'dist', 'main.js')],
      outdir: scratch,
      // What is imported with import() (the gRPC door's server, cluster mode) goes to chunks of
      // its own, beside main.js (the same depth, so relative paths hold), loaded only when used:
      // in one file, their external imports (grpc-js) would load at every start.
      splitting: true,
      chunkNames: '[name]-[hash]',
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: ['node20'],
      // CommonJS dependencies call `require`, which an ES module does not have.
      banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
      external: ['classic-level', 'pino', 'pino-pretty', '@grpc/grpc-js', '@grpc/reflection', '*.node', '../../native/index.cjs'],
      sourcemap: 'linked',
      legalComments: 'eof',
      logLevel: 'warning',
    });
  });
  return serverBundle;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await buildServer();
  console.log(`server bundled into ${written}`);
}
