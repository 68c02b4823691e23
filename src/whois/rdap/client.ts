import { asnRecord, emptyDomainRecord, type WhoisRecord } from '../parse/record.ts';
import type { WhoisTarget } from '../parse/target.ts';
import type { RdapBootstrapStore } from './bootstrap-store.ts';
import { HttpGetError, type HttpGetFailureKind, type HttpGetResult } from './http-get.ts';
import { type RdapObject, recordFromRdapAutnum, recordFromRdapDomain, recordFromRdapNetwork } from './to-record.ts';

/** One RDAP request: where, what came back, how long it took. */
export interface RdapAttempt {
  url: string;
  address: string | null;
  httpStatus: number | null;
  failure: { kind: HttpGetFailureKind | 'http-status' | 'bad-json'; message: string } | null;
  durationMs: number;
}

export type RdapOutcome =
  | { kind: 'answer'; raw: string; record: WhoisRecord; attempts: RdapAttempt[] }
  /** The bootstrap registry names no RDAP server for the target: nothing was asked. */
  | { kind: 'unavailable'; reason: string }
  | { kind: 'failed'; attempts: RdapAttempt[] };

export interface RdapClientOptions {
  bootstrap: RdapBootstrapStore;
  /** A GET through the project's resolver and the target policy (http-get.ts). */
  get: (url: string) => Promise<HttpGetResult>;
  /** Servers asked at most per lookup, when a service lists several. */
  maxServers?: number;
}

/** RFC 9082 §3.1: domain/<name>, ip/<address> or ip/<prefix>/<length>, autnum/<number>. */
function queryUrl(base: string, target: WhoisTarget): string {
  switch (target.kind) {
    case 'domain':
      return `${base}domain/${target.name}`;
    case 'ip':
      return `${base}ip/${target.address}`;
    case 'network':
      return `${base}ip/${target.cidr}`;
    case 'asn':
      return `${base}autnum/${target.asn}`;
  }
}

/** The objectClassName RFC 9083 gives the answer for each kind of target. */
const OBJECT_CLASS = { domain: 'domain', ip: 'ip network', network: 'ip network', asn: 'autnum' } as const;

function readObject(target: WhoisTarget, document: RdapObject): WhoisRecord {
  if (target.kind === 'domain') return recordFromRdapDomain(document);
  if (target.kind === 'asn') return recordFromRdapAutnum(document);
  return recordFromRdapNetwork(document);
}

/** The record in an answer, or the reason the answer is not usable. */
function readAnswer(target: WhoisTarget, answer: HttpGetResult): WhoisRecord | RdapAttempt['failure'] {
  // RFC 9083 §6: 404 is the server's "no such object" — for a domain, that it is not registered.
  if (answer.status === 404 && target.kind === 'domain') return emptyDomainRecord(false);
  // Likewise for an AS number inside a registry's range that it has not assigned.
  if (answer.status === 404 && target.kind === 'asn') return asnRecord(null);
  if (answer.status !== 200) {
    const hint = answer.status === 429 ? ' (rate limited)' : answer.status === 404 ? ' (no such network)' : '';
    return { kind: 'http-status', message: `answered HTTP ${answer.status}${hint}` };
  }
  let document: RdapObject;
  try {
    document = JSON.parse(answer.body) as RdapObject;
  } catch {
    return { kind: 'bad-json', message: 'answered 200 with a body that is not JSON' };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { kind: 'bad-json', message: 'answered 200 with JSON that is not an RDAP object' };
  }
  const expected = OBJECT_CLASS[target.kind];
  if (document.objectClassName !== undefined && document.objectClassName !== expected) {
    return { kind: 'bad-json', message: `answered a "${String(document.objectClassName)}" object, not "${expected}"` };
  }
  try {
    return readObject(target, document);
  } catch {
    // The readers skip what is not where RFC 9083 puts it; this is the net under them, so a server's
    // odd document is its failure (the next server, or a 502), never the service's 500.
    return { kind: 'bad-json', message: 'answered an RDAP object that could not be read' };
  }
}

/** Asks the RDAP servers IANA's bootstrap names for the target, HTTPS first, until one answers usably. */
export async function lookupRdap(target: WhoisTarget, options: RdapClientOptions): Promise<RdapOutcome> {
  const bases =
    target.kind === 'domain'
      ? await options.bootstrap.domainServers(target.name)
      : target.kind === 'asn'
        ? await options.bootstrap.asnServers(target.asn)
        : await options.bootstrap.ipServers(target.address);
  if (bases.length === 0) {
    const what =
      target.kind === 'domain'
        ? `.${target.name.split('.').at(-1)}`
        : target.kind === 'asn'
          ? `AS${target.asn}`
          : target.kind === 'network'
            ? target.cidr
            : target.address;
    return { kind: 'unavailable', reason: `IANA's RDAP bootstrap registry names no RDAP server for ${what}` };
  }
  const attempts: RdapAttempt[] = [];
  for (const base of bases.slice(0, options.maxServers ?? 2)) {
    const url = queryUrl(base, target);
    const started = performance.now();
    const attempt: RdapAttempt = { url, address: null, httpStatus: null, failure: null, durationMs: 0 };
    attempts.push(attempt);
    try {
      const answer = await options.get(url);
      attempt.url = answer.url;
      attempt.address = answer.address;
      attempt.httpStatus = answer.status;
      const read = readAnswer(target, answer);
      attempt.durationMs = Math.round(performance.now() - started);
      if (read && 'registered' in read) return { kind: 'answer', raw: answer.body, record: read, attempts };
      attempt.failure = read;
    } catch (error) {
      if (!(error instanceof HttpGetError)) throw error;
      attempt.address = error.address;
      attempt.failure = { kind: error.kind, message: error.message };
      attempt.durationMs = Math.round(performance.now() - started);
    }
  }
  return { kind: 'failed', attempts };
}
