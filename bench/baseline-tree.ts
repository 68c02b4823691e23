import path from 'node:path';

/**
 * The two trees a before/after bench runs in one process: BASELINE_TREE (a checkout of the code
 * before the change, e.g. `git worktree add ../before <commit>`), then this one. Required, so a
 * figure is never printed without the baseline it is read against.
 */
export function baselineAndThisTree(): { name: 'before' | 'after'; root: string }[] {
  const baseline = process.env.BASELINE_TREE;
  if (!baseline) {
    console.error('BASELINE_TREE: the checkout to compare against (e.g. git worktree add ../before 139214f)');
    process.exit(2);
  }
  return [
    { name: 'before', root: path.resolve(baseline) },
    { name: 'after', root: path.resolve(import.meta.dirname, '..') },
  ];
}
