import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countSpfLookups, type SpfDns } from '../../src/mail/spf-lookups.ts';
import { parseSpfRecord } from '../../src/mail/spf-parse.ts';

/** Answers from a table (names missing from it have no records) and records every question asked. */
function tableDns(table: {
  txt?: Record<string, string[]>;
  mx?: Record<string, string[]>;
  addresses?: Record<string, number>;
}) {
  const asked: string[] = [];
  const dns: SpfDns = {
    txt: async (name) => {
      asked.push(`TXT ${name}`);
      return table.txt?.[name] ?? [];
    },
    mx: async (name) => {
      asked.push(`MX ${name}`);
      return table.mx?.[name] ?? [];
    },
    addressCount: async (name) => {
      asked.push(`A+AAAA ${name}`);
      return table.addresses?.[name] ?? 0;
    },
    aCount: async (name) => {
      asked.push(`A ${name}`);
      return table.addresses?.[name] ?? 0;
    },
  };
  return { dns, asked };
}

const count = (domain: string, record: string, dns: SpfDns) => countSpfLookups(domain, parseSpfRecord(record), dns);

describe('countSpfLookups (RFC 7208 section 4.6.4)', () => {
  it('counts include, a, mx, ptr, exists and redirect, not ip4, ip6 or all', async () => {
    const { dns } = tableDns({
      txt: { 'inc.example': ['v=spf1 ip4:192.0.2.0/24 -all'], 'red.example': ['v=spf1 -all'] },
      mx: { 'example.com': ['mx.example.com'] },
      addresses: { 'example.com': 1, 'mx.example.com': 2, 'e.example': 1 },
    });
    const result = await count(
      'example.com',
      'v=spf1 ip4:192.0.2.1 ip6:2001:db8::1 a mx ptr exists:e.example include:inc.example redirect=red.example',
      dns,
    );
    assert.deepEqual(result, { lookups: 6, voidLookups: 0, problems: [] });
  });

  it('ignores redirect when the record has all (section 6.1)', async () => {
    const { dns, asked } = tableDns({});
    assert.equal((await count('example.com', 'v=spf1 -all redirect=other.example', dns)).lookups, 0);
    assert.deepEqual(asked, []);
  });

  it('counts an mx mechanism once, and each of its hosts without an address as a void lookup', async () => {
    const { dns, asked } = tableDns({ mx: { 'example.com': ['a.example.com', 'b.example.com', 'c.example.com'] } });
    const result = await count('example.com', 'v=spf1 mx -all', dns);
    assert.equal(result.lookups, 1);
    assert.equal(result.voidLookups, 3);
    assert.match(result.problems.join(), /more than 2 void lookups .*c\.example\.com/);
    assert.deepEqual(asked, ['MX example.com', 'A+AAAA a.example.com', 'A+AAAA b.example.com', 'A+AAAA c.example.com']);
  });

  it('says when an mx name has more than 10 MX records, and looks up the first 10 only', async () => {
    const hosts = Array.from({ length: 12 }, (_, index) => `mx${index}.example.com`);
    const addresses = Object.fromEntries(hosts.map((host) => [host, 1]));
    const { dns, asked } = tableDns({ mx: { 'example.com': hosts }, addresses });
    const result = await count('example.com', 'v=spf1 mx include:after.example -all', dns);
    assert.match(result.problems.join(), /12 MX records, more than the 10 a verifier may look up: permerror/);
    assert.equal(result.lookups, 1, 'the permerror stops the count: the include after it is not reached');
    assert.equal(asked.filter((question) => question.startsWith('A+AAAA')).length, 10);
  });

  it('counts ptr and terms with macros without asking anything', async () => {
    const { dns, asked } = tableDns({});
    const result = await count(
      'example.com',
      'v=spf1 ptr exists:%{i}._spf.example.com include:%{d}.x.example -all',
      dns,
    );
    assert.deepEqual(result, { lookups: 3, voidLookups: 0, problems: [] });
    assert.deepEqual(asked, []);
  });

  it('starts only the lookups that can fit under the limit: 15 includes ask 10', async () => {
    const targets = Array.from({ length: 15 }, (_, index) => `i${index}.example`);
    const txt = Object.fromEntries(targets.map((name) => [name, ['v=spf1 -all']]));
    const { dns, asked } = tableDns({ txt });
    const result = await count('example.com', `v=spf1 ${targets.map((name) => `include:${name}`).join(' ')} -all`, dns);
    assert.equal(result.lookups, 11);
    assert.match(result.problems.join(), /"include:i10\.example" in the record of example\.com is lookup 11/);
    assert.equal(asked.length, 10);
  });

  it('reports an include without an SPF record, with several, with +all, and a loop', async () => {
    const { dns } = tableDns({
      txt: {
        'none.example': ['some other text'],
        'two.example': ['v=spf1 -all', 'v=spf1 ~all'],
        'open.example': ['v=spf1 +all'],
        'loop.example': ['v=spf1 include:example.com -all'],
      },
    });
    const result = await count(
      'example.com',
      'v=spf1 include:none.example include:two.example include:open.example include:loop.example -all',
      dns,
    );
    assert.deepEqual(result.problems, [
      'include:none.example (in the record of example.com): none.example has no SPF record, which makes the check a permerror',
      'include:two.example (in the record of example.com): two.example has 2 SPF records, which is a permerror',
      'include:open.example (in the record of example.com): the record of open.example passes every server (+all)',
      'include:example.com (in the record of loop.example) loops back to example.com: permerror',
    ]);
  });

  it('does not count a failed lookup as void (the caller reports the failure)', async () => {
    const dns: SpfDns = {
      txt: async () => null,
      mx: async () => null,
      addressCount: async () => null,
      aCount: async () => null,
    };
    assert.deepEqual(await count('example.com', 'v=spf1 include:a.example a mx exists:e.example -all', dns), {
      lookups: 4,
      voidLookups: 0,
      problems: [],
    });
  });
});
