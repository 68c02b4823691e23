import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { scoreWhoisCorpora } from '../../scripts/whois-score/score.ts';
import { isNotFound } from '../../src/whois/parse/not-found.ts';
import { fixturesRoot, fullCorporaPresent, fullCorporaSkip } from '../whois/fixtures-root.ts';

// Rates mean something over the 765 replies of the full corpora, not over the vendored few dozen.
test('the parser meets its targets over all corpora together', { skip: fullCorporaSkip }, () => {
  const { total } = scoreWhoisCorpora(fixturesRoot);
  for (const field of ['domain_name', 'registrar', 'creation_date', 'expiration_date', 'name_servers'] as const) {
    const { correct, asserted } = total.fields[field];
    assert.ok(correct / asserted >= 0.95, `${field}: ${correct}/${asserted}`);
  }
});

// No tolerance here, so it holds over the vendored subset as over the full corpora.
test('every not-found reply is not found, and no registered domain is', () => {
  const { total, corpora } = scoreWhoisCorpora(fixturesRoot);
  // likexian's notfound folder is the corpus whose every file is a not-found answer.
  const notFoundFiles = readdirSync(path.join(fixturesRoot, 'likexian-whois-parser', 'notfound')).length;
  assert.equal(notFoundFiles, fullCorporaPresent ? 58 : 7);
  const likexian = corpora.get('likexian-whois-parser');
  assert.equal(likexian?.notFound.asserted, notFoundFiles);
  assert.equal(likexian.notFound.correct, likexian.notFound.asserted);
  assert.ok(total.fields.domain_name.asserted > 0, 'registered replies were scored');
  assert.equal(total.falseNotFound, 0, 'a registered domain was called not found');
});

test('isNotFound does not fire on disclaimers that mention "not found"', () => {
  assert.equal(
    isNotFound('NOTICE: if the domain is not found, contact your registrar.\nDomain Name: EXAMPLE.COM\n'),
    false,
  );
  assert.equal(isNotFound('%ERROR:103: Domain is not registered\n'), true);
  assert.equal(isNotFound('Domain: x.de\nStatus: free\n'), true);
});
