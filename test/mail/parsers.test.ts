import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { parseDkimRecord } from '../../src/mail/dkim.ts';
import { isDmarcRecord, parseDmarcRecord } from '../../src/mail/dmarc.ts';
import { isSpfRecord, parseSpfRecord } from '../../src/mail/spf-parse.ts';
import { parseTagList } from '../../src/mail/tag-list.ts';

// Records as published (November 2026) by large senders, and the examples of the RFCs.
describe('parseSpfRecord on real records', () => {
  const cases: Array<{ record: string; why: string; terms: string[]; modifiers?: string[] }> = [
    { record: 'v=spf1 include:_spf.google.com ~all', why: 'google.com', terms: ['+include:_spf.google.com', '~all'] },
    {
      record: 'v=spf1 include:_netblocks.google.com include:_netblocks2.google.com include:_netblocks3.google.com ~all',
      why: '_spf.google.com: includes only',
      terms: [
        '+include:_netblocks.google.com',
        '+include:_netblocks2.google.com',
        '+include:_netblocks3.google.com',
        '~all',
      ],
    },
    {
      record: 'v=spf1 ip4:40.92.0.0/15 ip4:40.107.0.0/16 ip6:2a01:111:f400::/48 ip6:2a01:111:f403:c000::/51 -all',
      why: 'spf.protection.outlook.com (shortened): IPv4 and IPv6 networks',
      terms: [
        '+ip4:40.92.0.0/15',
        '+ip4:40.107.0.0/16',
        '+ip6:2a01:111:f400::/48',
        '+ip6:2a01:111:f403:c000::/51',
        '-all',
      ],
    },
    {
      record: 'v=spf1 exists:%{i}._spf.mta.salesforce.com -all',
      why: 'Salesforce: exists with a macro',
      terms: ['+exists:%{i}._spf.mta.salesforce.com', '-all'],
    },
    {
      record: 'v=spf1 redirect=_spf.facebook.com',
      why: 'facebook.com: a redirect and no all',
      terms: [],
      modifiers: ['redirect=_spf.facebook.com'],
    },
    {
      record: 'V=SPF1 a mx/24 a:mail.example.com/24//64 ptr ?all exp=explain._spf.%{d}',
      why: 'RFC 7208 forms: upper-case version, CIDR lengths on a and mx, ptr, exp with a macro',
      terms: ['+a', '+mx/24', '+a:mail.example.com/24//64', '+ptr', '?all'],
      modifiers: ['exp=explain._spf.%{d}'],
    },
    {
      record: 'v=spf1  ip4:192.0.2.1   -all',
      why: 'several spaces between terms are allowed',
      terms: ['+ip4:192.0.2.1', '-all'],
    },
  ];
  for (const { record, why, terms, modifiers = [] } of cases) {
    it(why, () => {
      assert.equal(isSpfRecord(record), true);
      const parsed = parseSpfRecord(record);
      assert.deepEqual(parsed.errors, []);
      assert.deepEqual(
        parsed.mechanisms.map(
          (term) =>
            `${term.qualifier}${term.name}${term.value === null ? '' : term.value.startsWith('/') ? term.value : `:${term.value}`}`,
        ),
        terms,
      );
      assert.deepEqual(
        parsed.modifiers.map((modifier) => `${modifier.name}=${modifier.value}`),
        modifiers,
      );
    });
  }

  it('knows what is not an SPF record', () => {
    for (const text of ['v=spf10 -all', 'spf1 -all', 'v=DMARC1; p=none', 'google-site-verification=x']) {
      assert.equal(isSpfRecord(text), false, text);
    }
    assert.equal(isSpfRecord('v=spf1'), true);
  });

  it('names every syntax error', () => {
    const parsed = parseSpfRecord(
      'v=spf1 ip4:192.0.2.300 ip6:2001:db8::/129 include: include=x.example mx:/24 a/33 all:x redirect=a.example redirect=b.example -al',
    );
    assert.deepEqual(parsed.errors, [
      '"ip4:192.0.2.300": ip4 needs ":" and an IPv4 address with an optional /0-32',
      '"ip6:2001:db8::/129": ip6 needs ":" and an IPv6 address with an optional /0-128',
      '"include:": include needs ":" and a domain',
      '"include=x.example" uses "=" where the include mechanism takes ":"',
      '"mx:/24": mx takes an optional ":domain" and "/prefix" lengths',
      '"a/33": the IPv4 prefix length is over 32',
      '"all:x": all takes no value',
      'the redirect= modifier appears more than once',
      '"-al" is not a known mechanism',
    ]);
  });

  it('refuses a domain ending in a number and a bad macro', () => {
    assert.deepEqual(parseSpfRecord('v=spf1 include:192.0.2.1 a:%{z}.example.com').errors, [
      '"include:192.0.2.1": include needs ":" and a domain',
      '"a:%{z}.example.com": "%{z}.example.com" is not a valid domain',
    ]);
  });
});

describe('parseDmarcRecord on real records', () => {
  it('google.com', () => {
    const record = 'v=DMARC1; p=reject; rua=mailto:mailauth-reports@google.com';
    assert.equal(isDmarcRecord(record), true);
    assert.deepEqual(parseDmarcRecord(record), {
      p: 'reject',
      sp: null,
      pct: null,
      rua: ['mailto:mailauth-reports@google.com'],
      ruf: [],
      adkim: null,
      aspf: null,
      problems: [],
    });
  });

  it('paypal.com: two ruf URIs, fo=', () => {
    const parsed = parseDmarcRecord(
      'v=DMARC1; p=reject; rua=mailto:d@rua.agari.com; ruf=mailto:dk@bounce.paypal.com,mailto:d@ruf.agari.com; fo=1',
    );
    assert.deepEqual(parsed.ruf, ['mailto:dk@bounce.paypal.com', 'mailto:d@ruf.agari.com']);
    assert.deepEqual(parsed.problems, []);
  });

  it('p=none, a size limit on rua, spaces around = and ;', () => {
    const parsed = parseDmarcRecord('v=DMARC1 ;p = none; pct=100 ; rua=mailto:dmarc@example.com!10m; aspf=s;');
    assert.deepEqual(
      [parsed.p, parsed.pct, parsed.rua, parsed.aspf],
      ['none', 100, ['mailto:dmarc@example.com!10m'], 's'],
    );
    assert.deepEqual(parsed.problems, [
      'p=none: receivers only report and deliver mail that fails DMARC; use quarantine or reject to act',
    ]);
  });

  it('names syntax errors', () => {
    const parsed = parseDmarcRecord('v=DMARC1; p=reject;; adkim=x; rua=dmarc@example.com; pct=1.5; pp=none');
    assert.deepEqual(parsed.problems, [
      'syntax error: empty tag between two ";" (position 3)',
      'syntax error: pct=1.5 is not a whole number from 0 to 100',
      'syntax error: rua= has "dmarc@example.com", which is not a URI such as mailto:reports@example.com',
      'syntax error: adkim=x is not r (relaxed) or s (strict)',
      'unknown tag pp= (receivers ignore it; a typo?)',
    ]);
    assert.match(parseDmarcRecord('v=DMARC1; rua=mailto:a@example.com').problems.join(), /p= is missing/);
  });

  it('takes only records that start with v=DMARC1', () => {
    for (const text of ['p=reject; v=DMARC1', 'v=DMARC2; p=reject', 'v=spf1 -all']) {
      assert.equal(isDmarcRecord(text), false, text);
    }
  });
});

describe('parseDkimRecord', () => {
  // RFC 8463 appendix A.2: the example's two key records.
  it('the RFC 8463 Ed25519 key', () => {
    const key = parseDkimRecord('v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=');
    assert.deepEqual(key, { keyType: 'ed25519', bits: 256, revoked: false, testing: false, problems: [] });
  });

  it('the RFC 8463 RSA key: 1024 bits, below the recommended 2048', () => {
    const key = parseDkimRecord(
      'v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDkHlOQoBTzWRiGs5V6NpP3idY6Wk08a5qhdR6wy5bdOKb2jLQiY/J16JYi0Qvx/byYzCNb3W91y3FutACDfzwQ/BC/e/8uBsCR+yz1Lxj+PL6lHvqMKrM3rG4hstT5QjvHO9PzoxZyVYLzBfO2EeC3Ip3G+2kryOTIKT+l/K4w3QIDAQAB',
    );
    assert.equal(key.bits, 1024);
    assert.deepEqual(key.problems, ['the RSA key has 1024 bits: RFC 8301 recommends at least 2048']);
  });

  it('a 2048-bit key without v= and k=, its base64 broken by spaces (as long records are published)', () => {
    const der = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' });
    const base64 = der.toString('base64');
    const key = parseDkimRecord(`p=${base64.slice(0, 200)} ${base64.slice(200)}`);
    assert.deepEqual([key.keyType, key.bits, key.problems], ['rsa', 2048, []]);
  });

  it('a bare PKCS#1 RSAPublicKey, as RFC 6376 words it', () => {
    const der = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'pkcs1' });
    assert.equal(parseDkimRecord(`v=DKIM1; p=${der.toString('base64')}`).bits, 2048);
  });

  it('revoked, weak, testing, unreadable, unknown type, missing p=', () => {
    assert.deepEqual(parseDkimRecord('v=DKIM1; k=rsa; p='), {
      keyType: 'rsa',
      bits: null,
      revoked: true,
      testing: false,
      problems: ['the key is revoked (empty p=): signatures with this selector fail'],
    });
    const weak = generateKeyPairSync('rsa', { modulusLength: 512 }).publicKey.export({ format: 'der', type: 'spki' });
    assert.match(parseDkimRecord(`p=${weak.toString('base64')}`).problems.join(), /512 bits: too weak/);
    assert.match(
      parseDkimRecord('v=DKIM1; t=y; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=').problems.join(),
      /t=y/,
    );
    assert.deepEqual(parseDkimRecord('p=AAAA').problems, ['p= does not hold a readable rsa public key']);
    assert.deepEqual(parseDkimRecord('p=not base64!').problems, ['syntax error: p= is not base64']);
    assert.deepEqual(parseDkimRecord('k=dsa; p=AAAA').problems, [
      'unknown key type k=dsa (RFC 6376 and 8463 define rsa and ed25519)',
    ]);
    assert.deepEqual(parseDkimRecord('v=DKIM1; k=rsa').problems, [
      'syntax error: the required tag p= (the public key) is missing',
    ]);
    assert.match(parseDkimRecord('k=rsa; v=DKIM1; p=').problems.join(), /v= must be DKIM1 and the first tag/);
  });
});

describe('parseTagList', () => {
  it('allows a trailing ";" and white space, refuses duplicates and bad names', () => {
    const list = parseTagList(' v=STSv1 ; id=20190429T010101 ;');
    assert.deepEqual(
      [...list.tags],
      [
        ['v', 'STSv1'],
        ['id', '20190429T010101'],
      ],
    );
    assert.deepEqual(list.errors, []);
    assert.deepEqual(parseTagList('a=1; a=2; 1b=3; c').errors, [
      'tag a= appears more than once',
      '"1b" is not a valid tag name',
      '"c" is not tag=value',
    ]);
  });
});
