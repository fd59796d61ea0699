// What the server reports about itself in `GET /` (docs/api.md §3).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCommit, readCheckoutCommit } from './git-commit.js';

/** The Qdrant REST API level QuiverDB implements; clients compare major.minor with theirs. */
export const apiVersion = '1.19.0';

/**
 * The nearest directory above this module that holds package.json: the project root whether this
 * runs as src/version.ts, dist/version.js or inside the bundle in dist/server.
 */
function findProjectRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error('package.json not found above the server module');
    directory = parent;
  }
  return directory;
}

const projectRoot = findProjectRoot();

function readPackageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** Our own release version, sent as the `x-quiverdb-version` header. */
export const packageVersion = readPackageVersion();

function findCommit(): string | undefined {
  const fromEnvironment = process.env.QUIVER_COMMIT;
  if (fromEnvironment && isCommit(fromEnvironment)) return fromEnvironment;
  return readCheckoutCommit(projectRoot);
}

/** The 40-hex commit the server was built from, or undefined when it cannot be known. */
export const buildCommit = findCommit();
