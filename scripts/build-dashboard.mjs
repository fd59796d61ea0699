#!/usr/bin/env node
// `npm run build:dashboard`: bundles dashboard/ (Preact, TSX) with esbuild into dist/dashboard,
// which the server serves at /dashboard (docs/architecture.md §9). One script, one stylesheet and
// index.html; no CDN, nothing fetched at run time. Exported for the browser tests, which build
// before they start a server.
import { copyFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildInPlace } from './build-in-place.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'dashboard');
const output = join(root, 'dist', 'dashboard');

/** Builds into dist/dashboard through a scratch directory (build-in-place.mjs). */
export async function buildDashboard() {
  return buildInPlace(output, 'dashboard', async (scratch) => {
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
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await buildDashboard();
  console.log(`dashboard built into ${written}`);
}
