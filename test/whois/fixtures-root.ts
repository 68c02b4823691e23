import { existsSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** The full WHOIS corpora, shared and read-only, kept outside the repository. */
const sharedRoot = path.resolve(repoRoot, '..', 'shared', 'fixtures', 'whois');

/**
 * True when the full corpora are beside the repository. `NETINFO_TEST_FIXTURES=vendored` pretends
 * they are not, to run what a plain clone runs.
 */
export const fullCorporaPresent = process.env.NETINFO_TEST_FIXTURES !== 'vendored' && existsSync(sharedRoot);

/**
 * Where the tests read WHOIS replies: the full corpora when present, otherwise the subset vendored in
 * test/fixtures/whois (same layout; it holds every file a test names).
 */
export const fixturesRoot = fullCorporaPresent ? sharedRoot : path.join(repoRoot, 'test', 'fixtures', 'whois');

/** The skip reason of a test that needs the full corpora, not the vendored subset. */
export const fullCorporaSkip = fullCorporaPresent
  ? false
  : `needs the full WHOIS corpora in ${sharedRoot} (test/fixtures/whois holds a subset)`;
