import type { WhoisHop } from './chain.ts';
import type { RdapAttempt } from './rdap/client.ts';

/** One server asked, as the response's `servers` array shows it. */
export interface WhoisServerStep {
  protocol: 'whois' | 'rdap';
  /** WHOIS: `host:port`; RDAP: the URL requested (after redirects, the one that answered). */
  server: string;
  /** The IP address connected to; null when no connection was made. */
  address: string | null;
  /** WHOIS: the exact line sent; RDAP: null (the URL carries the query). */
  query: string | null;
  /** WHOIS: the next server this answer named, followed or not (see note). */
  referral: string | null;
  /** RDAP: the HTTP status, when one came back. */
  http_status: number | null;
  /** Why a referral was not followed; that an answer may be cut short (ended by a reset). */
  note: string | null;
  /** What went wrong with this server; null when it answered. */
  error: string | null;
  duration_ms: number;
}

const ENDED_BY_RESET_NOTE = 'the server reset the connection instead of closing it: the answer may be cut short';

export function stepFromHop(hop: WhoisHop): WhoisServerStep {
  const notes = [hop.note, hop.endedByReset ? ENDED_BY_RESET_NOTE : null].filter((note) => note !== null);
  return {
    protocol: 'whois',
    server: hop.server,
    address: hop.address,
    query: hop.query,
    referral: hop.referral,
    http_status: null,
    note: notes.length > 0 ? notes.join('; ') : null,
    error: hop.failure?.message ?? null,
    duration_ms: hop.durationMs,
  };
}

export function stepFromRdap(attempt: RdapAttempt): WhoisServerStep {
  return {
    protocol: 'rdap',
    server: attempt.url,
    address: attempt.address,
    query: null,
    referral: null,
    http_status: attempt.httpStatus,
    note: null,
    error: attempt.failure?.message ?? null,
    duration_ms: attempt.durationMs,
  };
}

/** 'whois.iana.org:43 at 192.0.32.59: connection refused', for 502 messages. */
export function describeFailedStep(step: WhoisServerStep): string {
  const where = step.address ? `${step.server} at ${step.address}` : step.server;
  return `${step.protocol === 'rdap' ? 'RDAP ' : ''}${where}: ${step.error}`;
}
