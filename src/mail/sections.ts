import type { DnsError } from '../dns/errors.ts';
import { compareMx, type DnsRecord } from '../dns/records.ts';
import type { QueryResult } from '../dns/resolver.ts';
import { parseDkimRecord } from './dkim.ts';
import { isDmarcRecord, parseDmarcRecord } from './dmarc.ts';
import type { MailReport, MxSection, SpfSection } from './schema.ts';
import { countSpfLookups, type SpfDns } from './spf-lookups.ts';
import { isSpfRecord, parseSpfRecord } from './spf-parse.ts';
import { parseTagList } from './tag-list.ts';

// Each section of the report from the answers its lookups got: what was asked is the checker's.

/** One lookup's outcome: its answer, or why there is none (`error` when the DNS itself failed). */
export type Asked = { result: QueryResult | null; failure: string | null; error: DnsError | null };

/** MX hosts whose addresses are looked up (RFC 7208's limit for the mx mechanism, reused). */
const MX_HOSTS_RESOLVED = 10;

export function nonexistent(domain: string, selector: string | null, dkimName: string | null): MailReport {
  const empty = { found: false, record: null, problems: [] };
  return {
    domain,
    exists: false,
    problems: [`${domain} does not exist (the DNS answered NXDOMAIN)`],
    mx: { found: false, records: [], problems: [] },
    spf: { ...empty, mechanisms: [], modifiers: [], lookups: 0, void_lookups: 0 },
    dmarc: { ...empty, p: null, sp: null, pct: null, rua: [], ruf: [], adkim: null, aspf: null },
    dkim:
      selector === null || dkimName === null
        ? null
        : { ...empty, selector, name: dkimName, key_type: null, bits: null },
    mta_sts: { ...empty, id: null },
    tls_rpt: { ...empty, rua: [] },
  };
}

export function txtStrings(answers: readonly DnsRecord[]): string[] {
  return answers.flatMap((record) => (record.type === 'TXT' ? [record.data.join('')] : []));
}

export function mxRecords(answers: readonly DnsRecord[]): Array<{ preference: number; host: string }> {
  return answers
    .flatMap((record) =>
      record.type === 'MX' ? [{ preference: record.data.preference, host: record.data.exchange || '.' }] : [],
    )
    .sort((x, y) =>
      compareMx({ preference: x.preference, exchange: x.host }, { preference: y.preference, exchange: y.host }),
    );
}

export function addressesOf(asked: Asked, type: 'A' | 'AAAA'): string[] {
  return (asked.result?.answers ?? []).flatMap((record) => (record.type === type ? [record.data] : []));
}

export async function describeMx(
  domain: string,
  asked: Asked,
  ask: (name: string, type: 'A' | 'AAAA') => Promise<Asked>,
): Promise<MxSection> {
  if (asked.result === null) return { found: false, records: [], problems: [asked.failure ?? ''] };
  const records = mxRecords(asked.result.answers);
  const problems: string[] = [];
  if (records.length === 0) {
    problems.push(`${domain} has no MX records: senders fall back to its A and AAAA addresses (RFC 5321 section 5.1)`);
    return { found: false, records: [], problems };
  }
  // RFC 7505: a single "0 ." says the domain accepts no mail.
  if (records.length === 1 && records[0]?.host === '.') {
    problems.push(`${domain} has a null MX (0 .): it accepts no mail (RFC 7505)`);
    return { found: true, records: [{ preference: records[0].preference, host: '.', a: [], aaaa: [] }], problems };
  }
  if (records.length > MX_HOSTS_RESOLVED) {
    problems.push(`${records.length} MX records: the addresses of the first ${MX_HOSTS_RESOLVED} were looked up`);
  }
  const described = await Promise.all(
    records.map(async (record, index) => {
      if (index >= MX_HOSTS_RESOLVED || record.host === '.') return { ...record, a: [], aaaa: [] };
      const [a, aaaa] = await Promise.all([ask(record.host, 'A'), ask(record.host, 'AAAA')]);
      for (const failed of [a, aaaa]) if (failed.failure) problems.push(failed.failure);
      const addresses = { a: addressesOf(a, 'A'), aaaa: addressesOf(aaaa, 'AAAA') };
      if (a.result && aaaa.result && addresses.a.length === 0 && addresses.aaaa.length === 0) {
        problems.push(`the MX host ${record.host} has no A or AAAA address: mail cannot be delivered to it`);
      }
      return { ...record, ...addresses };
    }),
  );
  return { found: true, records: described, problems };
}

export async function describeSpf(
  domain: string,
  asked: Asked,
  dns: SpfDns,
  lookupProblems: string[],
): Promise<SpfSection> {
  const empty = { record: null, mechanisms: [], modifiers: [], lookups: 0, void_lookups: 0 };
  if (asked.result === null) return { found: false, ...empty, problems: [asked.failure ?? ''] };
  const records = txtStrings(asked.result.answers).filter(isSpfRecord);
  if (records.length === 0) {
    return {
      found: false,
      ...empty,
      problems: [`${domain} has no SPF record: receivers cannot tell which servers may send its mail`],
    };
  }
  const record = records[0] ?? '';
  const problems: string[] = [];
  if (records.length > 1) {
    problems.push(
      `${records.length} SPF records (${records.map((text) => JSON.stringify(text)).join(', ')}): verifiers answer permerror when there is more than one (RFC 7208 section 4.5)`,
    );
  }
  const parsed = parseSpfRecord(record);
  for (const error of parsed.errors) problems.push(`syntax error: ${error}`);
  if (parsed.mechanisms.some((mechanism) => mechanism.name === 'all' && mechanism.qualifier === '+')) {
    problems.push('+all: every server on the internet passes SPF for this domain');
  }
  const counted = await countSpfLookups(domain, parsed, dns);
  problems.push(...counted.problems, ...lookupProblems);
  return {
    found: true,
    record,
    mechanisms: parsed.mechanisms.map(({ qualifier, name, value }) => ({ qualifier, name, value })),
    modifiers: parsed.modifiers,
    lookups: counted.lookups,
    void_lookups: counted.voidLookups,
    problems,
  };
}

function pickRecord(
  asked: Asked,
  matches: (text: string) => boolean,
  missing: string | null,
): { record: string | null; problems: string[] } {
  if (asked.result === null) return { record: null, problems: [asked.failure ?? ''] };
  const records = txtStrings(asked.result.answers).filter(matches);
  if (records.length === 0) return { record: null, problems: missing === null ? [] : [missing] };
  if (records.length > 1) {
    return { record: null, problems: [`${records.length} records where there must be one, so none applies`] };
  }
  return { record: records[0] ?? null, problems: [] };
}

export function describeDmarc(domain: string, asked: Asked): MailReport['dmarc'] {
  const picked = pickRecord(
    asked,
    isDmarcRecord,
    `no DMARC record at _dmarc.${domain}: receivers apply no policy to mail failing SPF and DKIM`,
  );
  const empty = { p: null, sp: null, pct: null, rua: [], ruf: [], adkim: null, aspf: null };
  if (picked.record === null) return { found: false, record: null, ...empty, problems: picked.problems };
  const { problems, ...tags } = parseDmarcRecord(picked.record);
  return { found: true, record: picked.record, ...tags, problems };
}

export function describeDkim(selector: string, name: string, asked: Asked): NonNullable<MailReport['dkim']> {
  // A key record need not carry v=DKIM1; any TXT record at the name is taken as the key record.
  const picked = pickRecord(asked, () => true, `no DKIM key at ${name}: check the selector`);
  if (picked.record === null) {
    return { found: false, selector, name, record: null, key_type: null, bits: null, problems: picked.problems };
  }
  const key = parseDkimRecord(picked.record);
  return {
    found: true,
    selector,
    name,
    record: picked.record,
    key_type: key.revoked ? null : key.keyType,
    bits: key.bits,
    problems: key.problems,
  };
}

export function describeMtaSts(asked: Asked): MailReport['mta_sts'] {
  const picked = pickRecord(
    asked,
    (text) => /^v=STSv1\s*(;|$)/.test(text),
    // Optional (RFC 8461): its absence is what found: false says, not a problem.
    null,
  );
  if (picked.record === null) return { found: false, record: null, id: null, problems: picked.problems };
  const list = parseTagList(picked.record);
  const problems = list.errors.map((error) => `syntax error: ${error}`);
  const id = list.tags.get('id') ?? null;
  if (id === null) problems.push('syntax error: the required tag id= is missing');
  else if (!/^[A-Za-z0-9]{1,32}$/.test(id)) problems.push(`syntax error: id=${id} is not 1 to 32 letters and digits`);
  return { found: true, record: picked.record, id, problems };
}

export function describeTlsRpt(asked: Asked): MailReport['tls_rpt'] {
  const picked = pickRecord(asked, (text) => /^v=TLSRPTv1\s*(;|$)/.test(text), null);
  if (picked.record === null) return { found: false, record: null, rua: [], problems: picked.problems };
  const list = parseTagList(picked.record);
  const problems = list.errors.map((error) => `syntax error: ${error}`);
  const rua = (list.tags.get('rua') ?? '')
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
  if (rua.length === 0) problems.push('syntax error: the required tag rua= is missing or empty');
  for (const uri of rua) {
    if (!/^(mailto:[^\s@]+@[^\s@]+|https:\/\/\S+)$/i.test(uri)) {
      problems.push(`syntax error: rua= has "${uri}", which is neither a mailto: nor an https: URI`);
    }
  }
  return { found: true, record: picked.record, rua, problems };
}
