import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNotFound } from '../../src/whois/not-found.ts';
import { scoreWhoisCorpora } from '../../src/whois/scoring/score.ts';
import { fixturesPresent, fixturesRoot, skipMessage } from './fixtures-root.ts';

test('the parser meets its targets over all corpora together', (t) => {
  if (!fixturesPresent) return t.skip(skipMessage);
  const { total, corpora } = scoreWhoisCorpora(fixturesRoot);
  for (const field of ['domain_name', 'registrar', 'creation_date', 'expiration_date', 'name_servers'] as const) {
    const { correct, asserted } = total.fields[field];
    assert.ok(correct / asserted >= 0.95, `${field}: ${correct}/${asserted}`);
  }
  // likexian's notfound folder is the corpus whose every file is a not-found answer.
  const likexian = corpora.get('likexian-whois-parser');
  assert.ok(likexian && likexian.notFound.asserted === 58);
  assert.equal(likexian.notFound.correct, likexian.notFound.asserted);
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
