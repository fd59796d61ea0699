// dist/server/main.js, what `npm start` and the Docker image run (scripts/build-server.mjs bundles
// this file there): runs the server bundle beside it, server.cjs, through V8's code cache
// (code-cache.ts). The cache is written by the build's warm-up start; a start that found it
// missing or rejected (Node upgraded since the build) writes it again when it exits cleanly, so
// only that one start compiles everything.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWithCodeCache } from './code-cache.js';
import { startedWithServerFlags } from './node-flags.js';

const bundle = join(dirname(fileURLToPath(import.meta.url)), 'server.cjs');
const run = runWithCodeCache(bundle, `${bundle}.cache`);
// V8 rejects a cache made under other V8 flags (--max-old-space-size, say, here or in
// NODE_OPTIONS). The one cache file is for the shipped command, `node <serverNodeFlags>
// dist/server/main.js` (node-flags.ts): a start with other flags compiles as it would without a
// cache and leaves the file alone, or starts with different flags would take turns rewriting it.
const shippedCommand = startedWithServerFlags(process.execArgv, process.env.NODE_OPTIONS);
if (run.status !== 'used' && shippedCommand) {
  // At exit every function the start and the serving needed is compiled, so the cache holds them
  // all. Not after a failed start (exit code 1 or 2): its cache would hold too little.
  process.once('exit', (code) => {
    if (code === 0) run.writeCache();
  });
}
