#!/usr/bin/env node
// `npm run build:dashboard`: bundles dashboard/ (Preact, TSX) with esbuild into dist/dashboard,
// which the server serves at /dashboard (docs/architecture.md §9). One script, one stylesheet and
// index.html; no CDN, nothing fetched at run time. Exported for the browser tests, which build
// before they start a server.
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'dashboard');
const output = join(root, 'dist', 'dashboard');

/**
 * Builds into a scratch directory, then renames each file into dist/dashboard: a server (or a
 * test running beside this build) never reads a half-written file.
 */
export async function buildDashboard() {
  const scratch = join(root, 'dist', `.dashboard-build-${process.pid}-${Date.now()}`);
  await mkdir(scratch, { recursive: true });
  try {
    await build({
      entryPoints: [join(source, 'src', 'main.tsx')],
      outfile: join(scratch, 'app.js'),
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['es2022'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      legalComments: 'none',
      logLevel: 'warning',
    });
    await copyFile(join(source, 'index.html'), join(scratch, 'index.html'));
    await copyFile(join(source, 'style.css'), join(scratch, 'style.css'));
    await mkdir(output, { recursive: true });
    for (const name of await readdir(scratch)) await rename(join(scratch, name), join(output, name));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return output;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await buildDashboard();
  console.log(`dashboard built into ${written}`);
}
