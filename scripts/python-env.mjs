#!/usr/bin/env node
// Makes .cache/python-venv hold test/python/requirements.txt (qdrant-client for the gRPC tests),
// or, given `<venv directory> <requirements file>` (relative to the repository), that venv with
// those requirements (bench:ann's peers: .cache/bench-venv from bench/ann/python/requirements.txt).
// Idempotent: when the venv exists and the requirements file has not changed since the last
// install (a copy is kept inside the venv), it does nothing. Exit 0 when ready, 1 when it could
// not be built (no python3, no network): the Python test then skips with the reason.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const [venvArgument, requirementsArgument] = process.argv.slice(2);
const venv = join(root, venvArgument ?? join('.cache', 'python-venv'));
const requirements = join(root, requirementsArgument ?? join('test', 'python', 'requirements.txt'));
const installed = join(venv, 'installed-requirements.txt');
const python = join(venv, 'bin', 'python');

function run(command, args) {
  const child = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  return child.status === 0;
}

const wanted = readFileSync(requirements, 'utf8');
if (existsSync(python) && existsSync(installed) && readFileSync(installed, 'utf8') === wanted) process.exit(0);
if (!existsSync(python) && !run('python3', ['-m', 'venv', venv])) {
  console.error('python-env: python3 -m venv failed');
  process.exit(1);
}
if (!run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements])) {
  console.error('python-env: pip install failed');
  process.exit(1);
}
copyFileSync(requirements, installed);
