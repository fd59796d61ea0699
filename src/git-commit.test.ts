import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCheckoutCommit } from './git-commit.js';

const directories: string[] = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function git(directory: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: directory,
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .toString()
    .trim();
}

/** A fresh repository with `commits` commits on branch main. */
function repository(commits: number): string {
  const directory = mkdtempSync(join(tmpdir(), 'quiver-git-'));
  directories.push(directory);
  git(directory, 'init', '-q', '-b', 'main');
  for (let commit = 0; commit < commits; commit += 1) {
    writeFileSync(join(directory, 'file'), String(commit));
    git(directory, 'add', 'file');
    git(directory, 'commit', '-q', '-m', `commit ${commit}`);
  }
  return directory;
}

describe('the checkout commit read from .git files', () => {
  it('is_the_commit_git_names_for_a_branch_as_a_loose_ref', () => {
    const directory = repository(2);
    expect(readCheckoutCommit(directory)).toBe(git(directory, 'rev-parse', 'HEAD'));
  });

  it('is_the_commit_git_names_for_a_branch_in_packed_refs', () => {
    const directory = repository(1);
    git(directory, 'pack-refs', '--all', '--prune');
    expect(readCheckoutCommit(directory)).toBe(git(directory, 'rev-parse', 'HEAD'));
  });

  it('is_the_detached_head_itself', () => {
    const directory = repository(2);
    git(directory, 'checkout', '-q', '--detach', 'HEAD~1');
    expect(readCheckoutCommit(directory)).toBe(git(directory, 'rev-parse', 'HEAD'));
  });

  it('follows_a_worktree_to_its_own_head_and_the_shared_refs', () => {
    const main = repository(2);
    const worktree = join(mkdtempSync(join(tmpdir(), 'quiver-worktree-')), 'tree');
    directories.push(worktree, join(worktree, '..'));
    git(main, 'worktree', 'add', '-q', '-b', 'side', worktree, 'HEAD~1');
    git(main, 'pack-refs', '--all', '--prune');
    expect(readCheckoutCommit(worktree)).toBe(git(worktree, 'rev-parse', 'HEAD'));
    expect(readCheckoutCommit(worktree)).not.toBe(readCheckoutCommit(main));
  });

  it('is_unknown_outside_a_checkout_and_for_a_branch_with_no_commit', () => {
    const empty = mkdtempSync(join(tmpdir(), 'quiver-git-'));
    directories.push(empty);
    expect(readCheckoutCommit(empty)).toBeUndefined();
    expect(readCheckoutCommit(repository(0))).toBeUndefined();
  });
});
