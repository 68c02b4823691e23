import type { DnsRecord } from './records.ts';
import { typeNumber } from './types.ts';

/** Longest CNAME chain followed; resolvers use similar bounds (BIND: 16, Unbound: 11). */
export const MAX_CNAME_HOPS = 10;

export type ChainWalk = {
  /** The CNAMEs from the question's name on, in order. */
  chain: DnsRecord[];
  /** Records of the asked type owned by the chain's end. */
  records: DnsRecord[];
  /** The name the chain ends at (the question's name when there is no CNAME). */
  end: string;
};

/**
 * Walks an answer section from `name` along CNAMEs to the records of `type`. Records not on the
 * way are dropped: a server has no business adding them, and they would be shown as if asked for.
 */
export function walkCnameChain(answers: readonly DnsRecord[], name: string, type: string): ChainWalk {
  const chain: DnsRecord[] = [];
  let current = name;
  for (let hop = 0; hop <= MAX_CNAME_HOPS; hop++) {
    const owned = answers.filter((record) => sameName(record.name, current));
    const records = owned.filter((record) => record.type === type);
    if (records.length > 0 || type === 'CNAME') return { chain, records, end: current };
    const cname = owned.find((record) => record.type === 'CNAME');
    if (cname === undefined || cname.type !== 'CNAME' || chain.includes(cname)) break;
    chain.push(cname);
    current = cname.data;
  }
  return { chain, records: [], end: current };
}

export function sameName(a: string, b: string): boolean {
  return a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');
}

/**
 * The records, each RRset followed by the RRSIGs in `answers` that cover it (same owner, type
 * covered), as dig lists them. Signatures over anything else are left out, as the records are.
 */
export function withSignatures(records: readonly DnsRecord[], answers: readonly DnsRecord[]): DnsRecord[] {
  const signed: DnsRecord[] = [];
  records.forEach((record, index) => {
    signed.push(record);
    const next = records[index + 1];
    if (next !== undefined && sameName(next.name, record.name) && next.type === record.type) return;
    for (const signature of answers) {
      if (signature.type === 'RRSIG' && sameName(signature.name, record.name)) {
        if (typeNumber(signature.data.typeCovered) === typeNumber(record.type)) signed.push(signature);
      }
    }
  });
  return signed;
}
