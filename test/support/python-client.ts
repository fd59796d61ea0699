// The Python venvs the tests drive (scripts/python-env.mjs), each made once per run from pinned
// requirements, and a runner for test/python scripts in them: Qdrant's official client
// (test/python/requirements.txt) and the frameworks built on it (frameworks-requirements.txt).
// Without python3 or the network a venv cannot be made: the tests skip and say why.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const projectRoot = join(import.meta.dirname, '..', '..');

export interface PythonVenv {
  /** Relative to the repository, as scripts/python-env.mjs takes them. */
  directory: string;
  requirements: string;
}

/** Qdrant's Python client alone. */
export const clientVenv: PythonVenv = { directory: join('.cache', 'python-venv'), requirements: join('test', 'python', 'requirements.txt') };
/** LangChain, LlamaIndex and Haystack with their Qdrant integrations, and the client. */
export const frameworksVenv: PythonVenv = { directory: join('.cache', 'frameworks-venv'), requirements: join('test', 'python', 'frameworks-requirements.txt') };

/** Makes the venv (a no-op when it is already there); the reason when it cannot be made. */
export function pythonVenvProblem(venv: PythonVenv): string | undefined {
  const environment = spawnSync(process.execPath, [join(projectRoot, 'scripts', 'python-env.mjs'), venv.directory, venv.requirements], { stdio: 'pipe', encoding: 'utf8', timeout: 600_000 });
  return environment.status === 0 ? undefined : `the Python venv ${venv.directory} could not be made: ${environment.stderr}`;
}

/** The client's venv: makes it, or says why it cannot. */
export function pythonClientProblem(): string | undefined {
  return pythonVenvProblem(clientVenv);
}

/** Runs test/python/<script> with `args` in `venv` (the client's unless given); resolves with its exit code and output. */
export function runPythonScript(script: string, args: string[], venv: PythonVenv = clientVenv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(projectRoot, venv.directory, 'bin', 'python'), [join(projectRoot, 'test', 'python', script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
