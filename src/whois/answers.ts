import type { WhoisHop } from './chain.ts';
import { parseDomainWhois } from './parse/parse-domain.ts';
import { parseIpWhois } from './parse/parse-ip.ts';
import { domainRecord, fillGaps, hasDomainData, ipRecord, type WhoisRecord } from './parse/record.ts';
import type { WhoisChainTarget } from './parse/target.ts';
import type { ParsedDomainWhois } from './parse/types.ts';

/** What the chain's answers say about the target, if anything. */
export type WhoisReading =
  /** `hop` is the index of the most specific answer about the target: its text is the response's `raw`. */
  { found: true; hop: number; record: WhoisRecord } | { found: false };

type DomainAnswer = { hop: number; parsed: ParsedDomainWhois; aboutTarget: boolean; namesTarget: boolean };

/**
 * An answer is about the domain when it names it, when it says it is not registered, or when it is
 * the end of the chain and holds domain data without naming any domain (a registry layout without
 * a name line). IANA's answer is the record of the TLD ('domain: COM'): it names another domain, so
 * its dates and name servers are never taken for the domain's.
 */
function readDomainAnswers(name: string, hops: WhoisHop[]): DomainAnswer[] {
  const answers: DomainAnswer[] = [];
  hops.forEach((hop, index) => {
    if (hop.raw === null) return;
    const parsed = parseDomainWhois(hop.raw, name);
    const namesTarget = parsed.domain_name === name;
    const aboutTarget =
      namesTarget ||
      !parsed.registered ||
      (parsed.domain_name === null && hop.referral === null && hasDomainData(parsed));
    answers.push({ hop: index, parsed, aboutTarget, namesTarget });
  });
  return answers;
}

/**
 * The most specific answer about the domain wins (the registrar's over the registry's); a value it
 * leaves out is taken from a less specific answer that names the same domain (a thick registry's
 * dates when the registrar's reply omits them). Nothing is merged into a not-found answer.
 */
function readDomain(name: string, hops: WhoisHop[]): WhoisReading {
  const answers = readDomainAnswers(name, hops).filter((answer) => answer.aboutTarget);
  const best = answers.at(-1);
  if (!best) return { found: false };
  let parsed = best.parsed;
  if (parsed.registered) {
    for (const earlier of answers.slice(0, -1).reverse()) {
      if (earlier.namesTarget && earlier.parsed.registered) parsed = fillGaps(parsed, earlier.parsed);
    }
  }
  return { found: true, hop: best.hop, record: domainRecord(parsed) };
}

/**
 * An IP answer is about the target when it describes a block. IANA's answer describes a block too
 * (the /8 it allocated to a registry) but only to refer onwards: an answer that refers elsewhere
 * counts only when it names its network (ARIN's record of a legacy block it refers to RIPE).
 */
function readIp(hops: WhoisHop[]): WhoisReading {
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index];
    if (!hop || hop.raw === null) continue;
    const parsed = parseIpWhois(hop.raw);
    if (parsed.range !== null && (hop.referral === null || parsed.network_name !== null)) {
      return { found: true, hop: index, record: ipRecord(parsed) };
    }
  }
  return { found: false };
}

/** Reads the chain's answers into the response's `parsed`; found: false sends the lookup to RDAP. */
export function readWhoisAnswers(target: WhoisChainTarget, hops: WhoisHop[]): WhoisReading {
  return target.kind === 'domain' ? readDomain(target.name, hops) : readIp(hops);
}
