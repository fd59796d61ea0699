// The venv of Qdrant's official Python client for the tests that drive it (scripts/python-env.mjs,
// pinned test/python/requirements.txt), made once per run; and a runner for its scripts. Without
// python3 or the network the venv cannot be made: the tests skip and say why.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const projectRoot = join(import.meta.dirname, '..', '..');
const python = join(projectRoot, '.cache', 'python-venv', 'bin', 'python');

/** Makes the venv (a no-op when it is already there); the reason when it cannot be made. */
export function pythonClientProblem(): string | undefined {
  const environment = spawnSync(process.execPath, [join(projectRoot, 'scripts', 'python-env.mjs')], { stdio: 'pipe', encoding: 'utf8', timeout: 300_000 });
  return environment.status === 0 ? undefined : `the Python venv could not be made: ${environment.stderr}`;
}

/** Runs test/python/<script> with `args` in the venv; resolves with its exit code and output. */
export function runPythonScript(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(python, [join(projectRoot, 'test', 'python', script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
