import { readFileSync } from 'node:fs';

/** netinfo's version, as package.json says it (a node announces it; the MCP server gives it to clients). */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
