#!/usr/bin/env node
// Runs the `--quick` mode of every benchmark that exists, in turn; CI calls this after the tests.
// A quick benchmark fails only on a correctness floor (e.g. recall), never on speed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const benchmarks = [
  ['bench:ann', 'bench/ann/main.ts'],
  ['bench:http', 'bench/http/main.ts'],
  ['bench:start', 'bench/start/main.ts'],
  ['bench:filter', 'bench/filter/main.ts'],
  ['bench:sparse', 'bench/sparse/main.ts'],
  ['bench:mixed', 'bench/mixed/main.ts'],
  ['bench:async', 'bench/async/main.ts'],
  ['bench:profile', 'bench/profile/main.ts'],
];
let failures = 0;
let ran = 0;
for (const [script, file] of benchmarks) {
  if (!existsSync(file)) continue;
  ran += 1;
  console.log(`\n== npm run ${script} -- --quick`);
  const child = spawnSync('npm', ['run', '--silent', script, '--', '--quick'], { stdio: 'inherit' });
  if (child.status !== 0) {
    failures += 1;
    console.error(`bench: ${script} --quick failed (exit ${child.status ?? child.signal})`);
  }
}
console.log(`\nquick benchmarks: ${ran - failures} passed, ${failures} failed`);
process.exit(failures > 0 ? 1 : 0);
