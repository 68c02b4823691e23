/**
 * What one list's answer means. The honest part of a DNSBL check: an answer is "listed" only when
 * it is a listing code; refusals, rewritten answers and failures are "error", never "listed".
 */
export type DnsblStatus = 'listed' | 'not_listed' | 'error';

export type DnsblOutcome =
  | { kind: 'answer'; rcode: 'NOERROR' | 'NXDOMAIN'; addresses: readonly string[] }
  | { kind: 'failure'; message: string };

export interface DnsblVerdict {
  status: DnsblStatus;
  /** The A records the list returned (`127.0.0.x`), as they came. */
  returnCodes: string[];
  /** Why the answer is an error, in words. */
  error?: string;
}

/** Spamhaus-style 127.255.255.0/24 codes mean the query was refused, not that the IP is listed. */
const REFUSAL_CODES: Readonly<Record<string, string>> = {
  '127.255.255.252': 'the list refused the query: invalid query or DQS key (127.255.255.252)',
  '127.255.255.254':
    'the list refused the query: it does not answer queries through public or open resolvers (127.255.255.254); use your own recursive resolver in DNS_SERVERS',
  '127.255.255.255': 'the list refused the query: too many queries from this resolver (127.255.255.255)',
};

export function interpretDnsblOutcome(outcome: DnsblOutcome): DnsblVerdict {
  if (outcome.kind === 'failure') return { status: 'error', returnCodes: [], error: outcome.message };
  const returnCodes = [...outcome.addresses];
  if (outcome.rcode === 'NXDOMAIN' || returnCodes.length === 0) return { status: 'not_listed', returnCodes };
  for (const code of returnCodes) {
    const problem = problemWithCode(code);
    if (problem) return { status: 'error', returnCodes, error: problem };
  }
  return { status: 'listed', returnCodes };
}

function problemWithCode(code: string): string | null {
  const refusal = REFUSAL_CODES[code];
  if (refusal) return refusal;
  if (code.startsWith('127.255.255.')) return `the list answered ${code}, an error code rather than a listing`;
  if (!code.startsWith('127.')) {
    return `the answer ${code} is outside 127.0.0.0/8, so it is not a list's reply: the resolver rewrites missing names (ad or captive DNS), or the list has shut down and answers everything`;
  }
  // RFC 5782 §5: 127.0.0.1 must never be a listing; lists use it to signal refusals.
  if (code === '127.0.0.1')
    return 'the list answered 127.0.0.1, which is never a listing code (RFC 5782): usually a refusal';
  return null;
}
