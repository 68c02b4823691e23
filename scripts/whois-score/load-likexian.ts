import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { normaliseWhoisDate } from '../../src/whois/parse/dates.ts';
import type { CorpusSample, ExpectedWhois } from './expected.ts';
import { leadingCalendarDate } from './expected.ts';

interface LikexianDomain {
  punycode?: string;
  status?: string[];
  name_servers?: string[];
  dnssec?: boolean;
  created_date?: string;
  created_date_in_time?: string;
  updated_date?: string;
  updated_date_in_time?: string;
  expiration_date?: string;
  expiration_date_in_time?: string;
}

interface LikexianInfo {
  domain?: LikexianDomain;
  registrar?: { name?: string };
}

/**
 * The upstream parser's own RFC 3339 reading when it made one (independent of ours); otherwise the
 * string as written, read by our date rules, since the corpus gives nothing else.
 */
function expectedDate(written: string | undefined, inTime: string | undefined): (string | null)[] {
  if (inTime !== undefined) return [leadingCalendarDate(inTime)];
  return [written === undefined ? null : normaliseWhoisDate(written)];
}

/**
 * likexian/whois-parser: noterror/<tld>_<domain> beside <same>.json. Keys are omitted when empty, and
 * every file was reviewed as a whole, so an absent key asserts "none". The IANA TLD records
 * (com_com, cn_cn, swiss_swiss) are scored like any other reply: they use the same key: value layout.
 */
export function loadLikexian(fixturesRoot: string): CorpusSample[] {
  const folder = path.join(fixturesRoot, 'likexian-whois-parser');
  const samples: CorpusSample[] = [];
  for (const name of readdirSync(path.join(folder, 'noterror'))) {
    if (name.endsWith('.json')) continue;
    const info = JSON.parse(readFileSync(path.join(folder, 'noterror', `${name}.json`), 'utf8')) as LikexianInfo;
    const domain = info.domain ?? {};
    const query = name.slice(name.indexOf('_') + 1);
    const expected: ExpectedWhois = {
      domain_name: [domain.punycode?.toLowerCase() ?? null],
      registrar: [info.registrar?.name ?? null],
      creation_date: expectedDate(domain.created_date, domain.created_date_in_time),
      expiration_date: expectedDate(domain.expiration_date, domain.expiration_date_in_time),
      updated_date: expectedDate(domain.updated_date, domain.updated_date_in_time),
      name_servers: domain.name_servers ?? [],
      status: domain.status ?? [],
    };
    samples.push({
      corpus: 'likexian-whois-parser',
      file: `likexian-whois-parser/noterror/${name}`,
      raw: readFileSync(path.join(folder, 'noterror', name), 'utf8'),
      query,
      expected,
      notFound: false,
    });
  }
  for (const name of readdirSync(path.join(folder, 'notfound'))) {
    samples.push({
      corpus: 'likexian-whois-parser',
      file: `likexian-whois-parser/notfound/${name}`,
      raw: readFileSync(path.join(folder, 'notfound', name), 'utf8'),
      query: name.slice(name.indexOf('_') + 1),
      expected: { registered: false },
      notFound: true,
    });
  }
  return samples;
}
