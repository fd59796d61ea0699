#!/usr/bin/env node
// `npm test`: Rust tests, then TypeScript tests, then one closing line counting both
// ("tests: N passed, N failed"). Exits non-zero if anything failed or nothing ran.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const resultsFile = '.vitest-results.json';

function run(command, args, options = {}) {
  const child = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  process.stdout.write(child.stdout ?? '');
  return child;
}

let passed = 0;
let failed = 0;
let problems = [];

const rust = run('cargo', ['test', '--workspace', '--release', '--color', 'never']);
for (const match of (rust.stdout ?? '').matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
  passed += Number(match[1]);
  failed += Number(match[2]);
}
if (rust.status !== 0) problems.push(`cargo test exited with ${rust.status ?? rust.signal}`);

// The Python client the gRPC tests drive (test/grpc/python-client.test.ts): a venv at
// .cache/python-venv, made once; a failure here only makes that test skip with the reason.
run('node', ['scripts/python-env.mjs'], { stdio: ['ignore', 'inherit', 'inherit'] });
// The frameworks test/frameworks.test.ts runs for real (LangChain, LlamaIndex, Haystack): a venv at
// .cache/frameworks-venv, likewise.
run('node', ['scripts/python-env.mjs', '.cache/frameworks-venv', 'test/python/frameworks-requirements.txt'], { stdio: ['ignore', 'inherit', 'inherit'] });

rmSync(resultsFile, { force: true });
const extra = process.argv.slice(2);
const vitest = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${resultsFile}`, ...extra]);
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  if (results.numFailedTestSuites > 0) problems.push(`${results.numFailedTestSuites} test file(s) failed to run`);
  rmSync(resultsFile, { force: true });
} else {
  problems.push('vitest wrote no results');
}
if (vitest.status !== 0) problems.push(`vitest exited with ${vitest.status ?? vitest.signal}`);

for (const problem of problems) console.error(`test: ${problem}`);
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || problems.length > 0 || passed === 0 ? 1 : 0);
