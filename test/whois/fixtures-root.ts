import { existsSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The shared, read-only WHOIS corpora, kept outside the repository. */
export const fixturesRoot = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'whois');

export const fixturesPresent = existsSync(fixturesRoot);

export const skipMessage = `shared fixtures absent: ${fixturesRoot}`;
