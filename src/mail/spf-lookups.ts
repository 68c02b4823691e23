import { hasMacros, isSpfRecord, parseSpfRecord, type SpfMechanism, type SpfRecord } from './spf-parse.ts';

/** RFC 7208 §4.6.4: at most 10 terms that cause DNS lookups, and (SHOULD) at most 2 void lookups. */
export const SPF_LOOKUP_LIMIT = 10;
export const SPF_VOID_LOOKUP_LIMIT = 2;
/** §4.6.4: an mx mechanism whose name has more than 10 MX records is a permerror. */
export const SPF_MX_ADDRESS_LIMIT = 10;

/**
 * The DNS questions SPF counting asks, answered through the service's resolver. `null` stands for
 * a lookup that failed (the failure is the caller's to report) or that the call's query budget
 * did not allow.
 */
export type SpfDns = {
  /** TXT strings of `name` (each record's strings joined); [] for no records or NXDOMAIN. */
  txt(name: string): Promise<string[] | null>;
  /** MX exchange names of `name`; [] for none or NXDOMAIN. */
  mx(name: string): Promise<string[] | null>;
  /** How many A and AAAA records `name` has (0: none, or NXDOMAIN). */
  addressCount(name: string): Promise<number | null>;
  /** How many A records `name` has (the exists mechanism asks A only, §5.7). */
  aCount(name: string): Promise<number | null>;
};

export type SpfCount = {
  /** Terms that caused a DNS lookup, counted as §4.6.4 does, up to the first one over the limit. */
  lookups: number;
  voidLookups: number;
  problems: string[];
};

type Step =
  | { kind: 'record'; records: string[] | null }
  | { kind: 'addresses'; count: number | null }
  | { kind: 'mx'; hosts: string[] | null; counts: Array<number | null> }
  | { kind: 'none' };

type Lookup = { term: string; mechanism: SpfMechanism | null; target: string; step: () => Promise<Step> };

/**
 * Counts the DNS lookups an SPF check of `domain` causes (its record already fetched and parsed),
 * following include and redirect depth first and left to right as a verifier does, and stops at
 * the first term over the 10-lookup limit or the first void lookup over 2: a verifier stops there
 * with permerror. Without the connecting client's address nothing can match, so every term is
 * followed, the worst case: what a message that matches nothing costs. ptr and terms with macros
 * are counted but not queried (they depend on the client and the message). Within one record, the
 * lookups that can still fit under the limit are started together.
 */
export async function countSpfLookups(domain: string, record: SpfRecord, dns: SpfDns): Promise<SpfCount> {
  const state = { lookups: 0, voidLookups: 0, problems: [] as string[], stopped: false };
  await walk(domain, record, [domain.toLowerCase()], state, dns);
  return { lookups: state.lookups, voidLookups: state.voidLookups, problems: state.problems };
}

type State = { lookups: number; voidLookups: number; problems: string[]; stopped: boolean };

async function walk(domain: string, record: SpfRecord, path: string[], state: State, dns: SpfDns): Promise<void> {
  const lookups = lookupsOf(domain, record, dns);
  // Start now only what cannot be past the limit, even if every earlier term costs just one.
  const started = lookups.map((lookup, index) =>
    state.lookups + index + 1 <= SPF_LOOKUP_LIMIT ? lookup.step() : undefined,
  );
  // A lookup not awaited below (the walk stopped first) must not end as an unhandled rejection.
  for (const pending of started) pending?.catch(() => {});
  for (const [index, lookup] of lookups.entries()) {
    state.lookups += 1;
    if (state.lookups > SPF_LOOKUP_LIMIT) {
      state.problems.push(
        `more than ${SPF_LOOKUP_LIMIT} DNS lookups: "${lookup.term}" in the record of ${domain} is lookup ${state.lookups}, where verifiers stop with permerror (RFC 7208 section 4.6.4)`,
      );
      state.stopped = true;
      return;
    }
    const step = await (started[index] ?? lookup.step());
    if (countVoids(step, lookup, domain, state)) return;
    if (step.kind === 'record' && step.records !== null) {
      const target = lookup.target.toLowerCase();
      const isRedirect = lookup.mechanism === null;
      const spf = step.records.filter(isSpfRecord);
      const where = `${lookup.term} (in the record of ${domain})`;
      if (path.includes(target)) {
        state.problems.push(`${where} loops back to ${lookup.target}: permerror`);
        state.stopped = true;
        return;
      }
      if (spf.length === 0) {
        state.problems.push(`${where}: ${lookup.target} has no SPF record, which makes the check a permerror`);
        continue;
      }
      if (spf.length > 1) {
        state.problems.push(`${where}: ${lookup.target} has ${spf.length} SPF records, which is a permerror`);
        continue;
      }
      const child = parseSpfRecord(spf[0] ?? '');
      for (const error of child.errors) state.problems.push(`in the record of ${lookup.target}: ${error}`);
      if (!isRedirect && child.mechanisms.some((term) => term.name === 'all' && term.qualifier === '+')) {
        state.problems.push(`${where}: the record of ${lookup.target} passes every server (+all)`);
      }
      await walk(lookup.target, child, [...path, target], state, dns);
      if (state.stopped) return;
    }
  }
}

/** Counts the void lookups of one step; true when that made the walk stop. */
function countVoids(step: Step, lookup: Lookup, domain: string, state: State): boolean {
  const voids: string[] = [];
  if (step.kind === 'record' && step.records !== null && step.records.length === 0) voids.push(lookup.target);
  if (step.kind === 'addresses' && step.count === 0) voids.push(lookup.target);
  if (step.kind === 'mx') {
    if (step.hosts !== null && step.hosts.length === 0) voids.push(lookup.target);
    if (step.hosts !== null && step.hosts.length > SPF_MX_ADDRESS_LIMIT) {
      state.problems.push(
        `"${lookup.term}" in the record of ${domain}: ${lookup.target} has ${step.hosts.length} MX records, more than the ${SPF_MX_ADDRESS_LIMIT} a verifier may look up: permerror`,
      );
      // The mx mechanism's permerror ends the check where it stands.
      state.stopped = true;
      return true;
    }
    step.counts.forEach((count, index) => {
      if (count === 0) voids.push(step.hosts?.[index] ?? '');
    });
  }
  for (const name of voids) {
    state.voidLookups += 1;
    if (state.voidLookups > SPF_VOID_LOOKUP_LIMIT) {
      state.problems.push(
        `more than ${SPF_VOID_LOOKUP_LIMIT} void lookups (names with no records): ${name}, looked up for "${lookup.term}" in the record of ${domain}, is void lookup ${state.voidLookups}, where verifiers stop with permerror (RFC 7208 section 4.6.4)`,
      );
      state.stopped = true;
      return true;
    }
  }
  return false;
}

/** The terms of one record that cause lookups, in the order a verifier meets them. */
function lookupsOf(domain: string, record: SpfRecord, dns: SpfDns): Lookup[] {
  const lookups: Lookup[] = [];
  for (const mechanism of record.mechanisms) {
    if (!['include', 'a', 'mx', 'ptr', 'exists'].includes(mechanism.name)) continue;
    const target = stripDot(mechanism.domain ?? domain);
    const term = `${mechanism.qualifier === '+' ? '' : mechanism.qualifier}${mechanism.name}${mechanism.value === null ? '' : mechanism.value.startsWith('/') ? mechanism.value : `:${mechanism.value}`}`;
    const queried = mechanism.name !== 'ptr' && !hasMacros(target);
    lookups.push({ term, mechanism, target, step: queried ? stepFor(mechanism.name, target, dns) : none });
  }
  // §6.1: redirect is ignored when the record has an all mechanism; it is the last term evaluated.
  const redirect = record.modifiers.find((modifier) => modifier.name === 'redirect');
  if (redirect && !record.mechanisms.some((mechanism) => mechanism.name === 'all')) {
    const target = stripDot(redirect.value);
    lookups.push({
      term: `redirect=${redirect.value}`,
      mechanism: null,
      target,
      step: hasMacros(target) ? none : stepFor('include', target, dns),
    });
  }
  return lookups;
}

const none = async (): Promise<Step> => ({ kind: 'none' });

function stepFor(name: SpfMechanism['name'], target: string, dns: SpfDns): () => Promise<Step> {
  switch (name) {
    case 'include':
      return async () => ({ kind: 'record', records: await dns.txt(target) });
    case 'a':
      return async () => ({ kind: 'addresses', count: await dns.addressCount(target) });
    case 'exists':
      return async () => ({ kind: 'addresses', count: await dns.aCount(target) });
    case 'mx':
      return async () => {
        const hosts = await dns.mx(target);
        const looked = (hosts ?? []).slice(0, SPF_MX_ADDRESS_LIMIT);
        return { kind: 'mx', hosts, counts: await Promise.all(looked.map((host) => dns.addressCount(host))) };
      };
    default:
      return none;
  }
}

function stripDot(name: string): string {
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
