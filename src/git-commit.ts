// The commit a checkout is at, read from its .git files rather than by running `git rev-parse
// HEAD`: spawning git blocked the JS thread for 10–14 ms of every start (bench/README.md,
// "Start-up trims"), and a server image has no git at all. Covers what a clone or a worktree
// holds: HEAD naming a commit or a branch, the branch as a loose ref or in packed-refs, and a
// worktree's `.git` file pointing at its own directory with the refs shared in `commondir`.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

const COMMIT = /^[0-9a-f]{40}$/;

/** The 40-hex commit `root`'s checkout is at, or undefined when there is no readable one. */
export function readCheckoutCommit(root: string): string | undefined {
  try {
    const directory = gitDirectory(root);
    if (directory === undefined) return undefined;
    const head = readFileSync(join(directory, 'HEAD'), 'utf8').trim();
    if (COMMIT.test(head)) return head;
    const reference = /^ref: (\S+)$/.exec(head)?.[1];
    if (reference === undefined) return undefined;
    const shared = sharedDirectory(directory);
    return looseReference(directory, reference) ?? looseReference(shared, reference) ?? packedReference(shared, reference);
  } catch {
    return undefined;
  }
}

/** `.git` itself, or the directory a worktree's `.git` file names. */
function gitDirectory(root: string): string | undefined {
  const dotGit = join(root, '.git');
  const kind = statSync(dotGit, { throwIfNoEntry: false });
  if (kind === undefined) return undefined;
  if (kind.isDirectory()) return dotGit;
  const pointer = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  if (pointer === undefined) return undefined;
  return isAbsolute(pointer) ? pointer : resolve(root, pointer);
}

/** Where a worktree's branches live: the main repository's directory (`commondir`), else its own. */
function sharedDirectory(directory: string): string {
  const common = statSync(join(directory, 'commondir'), { throwIfNoEntry: false });
  if (common === undefined) return directory;
  const pointer = readFileSync(join(directory, 'commondir'), 'utf8').trim();
  return isAbsolute(pointer) ? pointer : resolve(directory, pointer);
}

function looseReference(directory: string, reference: string): string | undefined {
  const path = join(directory, reference);
  if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
  const commit = readFileSync(path, 'utf8').trim();
  return COMMIT.test(commit) ? commit : undefined;
}

/** packed-refs lines are `<commit> <reference>` (and `^<commit>` peel lines, skipped). */
function packedReference(directory: string, reference: string): string | undefined {
  const path = join(directory, 'packed-refs');
  if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const [commit, name] = line.trim().split(' ');
    if (name === reference && commit !== undefined && COMMIT.test(commit)) return commit;
  }
  return undefined;
}
