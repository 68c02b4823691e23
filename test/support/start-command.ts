import { readFileSync } from 'node:fs';

/**
 * The arguments `npm start` gives Node (its V8 flags, then `src/start.js`), read from package.json,
 * so the benchmarks and the process tests start the service exactly as an operator does.
 */
export function serviceArguments(): string[] {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const [command, ...args] = manifest.scripts.start.trim().split(/\s+/);
  if (command !== 'node' || args.at(-1) !== 'src/start.js') {
    throw new Error(
      `package.json "start" is not "node [flags] src/start.js": ${manifest.scripts.start}`,
    );
  }
  return args;
}
