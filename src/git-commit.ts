// The commit a checkout is at, read from its .git files rather than by running `git rev-parse
// HEAD`: spawning git blocked the JS thread for 10–14 ms of every start (bench/README.md,
// "Start-up trims"), and a server image has no git at all. Covers what a clone or a worktree
// holds: HEAD naming a commit or a branch, the branch as a loose ref or in packed-refs, and a
// worktree's `.git` file pointing at its own directory with the refs shared in `commondir`.
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

const COMMIT = /^[0-9a-f]{40}$/;

/** Whether `text` is a full commit id: 40 lowercase hex digits. */
export function isCommit(text: string): boolean {
  return COMMIT.test(text);
}

/** The 40-hex commit `root`'s checkout is at, or undefined when there is no readable one. */
export function readCheckoutCommit(root: string): string | undefined {
  try {
    const directory = gitDirectory(root);
    if (directory === undefined) return undefined;
    const head = readFileSync(join(directory, 'HEAD'), 'utf8').trim();
    if (isCommit(head)) return head;
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
  const pointer = readFileIfPresent(join(directory, 'commondir'))?.trim();
  if (pointer === undefined) return directory;
  return isAbsolute(pointer) ? pointer : resolve(directory, pointer);
}

function looseReference(directory: string, reference: string): string | undefined {
  const commit = readFileIfPresent(join(directory, reference))?.trim();
  return commit !== undefined && isCommit(commit) ? commit : undefined;
}

/** packed-refs lines are `<commit> <reference>` (and `^<commit>` peel lines, skipped). */
function packedReference(directory: string, reference: string): string | undefined {
  for (const line of readFileIfPresent(join(directory, 'packed-refs'))?.split('\n') ?? []) {
    const [commit, name] = line.trim().split(' ');
    if (name === reference && commit !== undefined && isCommit(commit)) return commit;
  }
  return undefined;
}

/** A file's text, or undefined when there is no such file. */
function readFileIfPresent(path: string): string | undefined {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true ? readFileSync(path, 'utf8') : undefined;
}
