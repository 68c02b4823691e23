import { spawnSync } from 'node:child_process';

/**
 * Why tests that build network namespaces cannot run here (not root, a tool missing, namespaces
 * refused), or false: they can. Tries by making and removing one namespace named `probeName`.
 */
export function netnsUnavailable(probeName: string, tools: readonly string[]): string | false {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  for (const tool of ['ip', ...tools]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  if (spawnSync('ip', ['netns', 'add', probeName]).status !== 0) return 'cannot create network namespaces here';
  spawnSync('ip', ['netns', 'del', probeName]);
  return false;
}
