import type { CachedAnswer } from './cache.ts';
import type { DnsError, DnsErrorCode } from './errors.ts';
import { formatMasterRdata } from './format.ts';
import type { QueryFlags } from './message.ts';
import type { DnsRecord } from './records.ts';
import { DNS_JSON_TYPE } from './schema.ts';
import { typeNumber } from './types.ts';

// RFC 1035 §4.1.1 and RFC 6895 §2.3: the rcodes a resolver may answer with, by number.
const RCODES: Record<string, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };

function absolute(name: string): string {
  return name.endsWith('.') ? name : `${name}.`;
}

function toDohRecord(record: DnsRecord) {
  return {
    name: absolute(record.name),
    type: typeNumber(record.type) ?? 0,
    TTL: record.ttl,
    data: formatMasterRdata(record),
  };
}

export function presentDohJson(name: string, type: number, answer: CachedAnswer) {
  // Answers a shared (Redis) cache kept from before the reply's bits were stored have none: RD and
  // RA as a recursive resolver's answer has them, and nothing claimed about validation.
  const flags = answer.flags ?? { rd: true, ra: true, ad: false, cd: false };
  return {
    Status: RCODES[answer.rcode] ?? 0,
    TC: false,
    RD: flags.rd,
    RA: flags.ra,
    AD: flags.ad,
    CD: flags.cd,
    Question: [{ name: absolute(name), type }],
    ...(answer.answers.length > 0 ? { Answer: answer.answers.map(toDohRecord) } : {}),
    ...(answer.authority.length > 0 ? { Authority: answer.authority.map(toDohRecord) } : {}),
  };
}

// A resolver's own failure is an answer in this API (Status 2, 5...), as Google and Cloudflare give it;
// no answer at all (timeouts, unreachable, garbage) stays the catalogue's 502.
const ANSWERED_FAILURES = new Set<DnsErrorCode>(['SERVFAIL', 'REFUSED', 'FORMERR', 'NOTIMP']);

export function presentDohFailure(name: string, type: number, asked: QueryFlags, error: DnsError) {
  if (!ANSWERED_FAILURES.has(error.code)) return null;
  const last = error.attempts.at(-1);
  const flags = last?.flags ?? { rd: true, ra: false, ad: false, cd: asked.checkingDisabled === true };
  return {
    Status: RCODES[error.code] ?? 2,
    TC: false,
    RD: flags.rd,
    RA: flags.ra,
    AD: false,
    CD: flags.cd,
    Question: [{ name: absolute(name), type }],
    Comment: `${error.code} from ${error.servers.join(', ')}${
      error.code === 'SERVFAIL'
        ? ' (a validating resolver answers so when DNSSEC validation fails; cd=1 asks it not to validate)'
        : ''
    }`,
  };
}

export function wantsDnsJson(accept: string | undefined, ct: string | undefined): boolean {
  if (ct !== undefined && ct.trim() !== '') return ct.trim().toLowerCase() === DNS_JSON_TYPE;
  return (accept ?? '')
    .toLowerCase()
    .split(',')
    .some((range) => range.split(';')[0]?.trim() === DNS_JSON_TYPE);
}
