#!/usr/bin/env node
// `npm run build:server`: bundles the compiled server (dist/main.js and every module it imports,
// dependencies included) into one ES module, dist/server/main.js, which `npm start` and the
// Docker image run. Node resolves, reads and compiles each of the ~1,200 files a plain start
// loads one by one; one file halves the time from spawn to listening (docs/architecture.md §21).
//
// Left outside the bundle, loaded from node_modules at run time as before: the native parts
// (the addon's loader, classic-level) and pino, whose transports start worker threads from
// their own files. The bundle sits two directories below the project root, like every dist/
// module that reads a file by a path relative to itself (the addon, the dashboard).
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const serverBundle = join(root, 'dist', 'server', 'main.js');

/**
 * Builds into a scratch directory beside dist/server (the same depth, so the source map's
 * relative paths hold), then renames each file into place: a running test never reads half a file.
 */
export async function buildServer() {
  const scratch = join(root, 'dist', `.server-build-${process.pid}-${Date.now()}`);
  await mkdir(scratch, { recursive: true });
  try {
    await build({
      entryPoints: [join(root, 'dist', 'main.js')],
      outfile: join(scratch, 'main.js'),
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
    await mkdir(dirname(serverBundle), { recursive: true });
    for (const name of await readdir(scratch)) await rename(join(scratch, name), join(dirname(serverBundle), name));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return serverBundle;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await buildServer();
  console.log(`server bundled into ${written}`);
}
