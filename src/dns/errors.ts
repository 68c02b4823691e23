import type { ReplyFlags } from './message.ts';

/**
 * Why a query got no usable answer. SERVFAIL, REFUSED, FORMERR and NOTIMP are the server's rcode;
 * TIMEOUT: no answer in time; UNREACHABLE: the server's port is closed (ICMP port unreachable) or
 * the TCP connection failed; BADRESPONSE: an answer that could not be decoded, was too large, did
 * not match the question (over UDP: only such replies came before the timeout), or had an rcode a
 * stub resolver cannot use.
 */
export type DnsErrorCode = 'SERVFAIL' | 'REFUSED' | 'TIMEOUT' | 'UNREACHABLE' | 'FORMERR' | 'NOTIMP' | 'BADRESPONSE';

/**
 * One try of one server, kept so an error can say what happened where; `flags`, the reply's header
 * bits, when the server did reply (SERVFAIL, REFUSED...).
 */
export type DnsAttempt = {
  server: string;
  transport: 'udp' | 'tcp';
  code: DnsErrorCode;
  detail?: string;
  flags?: ReplyFlags;
};

export class DnsError extends Error {
  readonly code: DnsErrorCode;
  /** Every server tried, in order, each once. */
  readonly servers: string[];
  readonly attempts: DnsAttempt[];

  constructor(code: DnsErrorCode, message: string, attempts: DnsAttempt[] = []) {
    super(message);
    this.name = 'DnsError';
    this.code = code;
    this.attempts = attempts;
    this.servers = [...new Set(attempts.map((attempt) => attempt.server))];
  }
}

export function dnsFailureInWords(error: DnsError): string {
  if (error.code === 'TIMEOUT') return 'no DNS server answered in time';
  if (error.code === 'UNREACHABLE') return 'the DNS servers could not be reached';
  if (error.code === 'BADRESPONSE') {
    return 'the DNS server sent no usable answer (undecodable, too large, or not matching the question)';
  }
  return `the DNS server answered ${error.code}`;
}

export function describeDnsFailure(host: string, type: string, error: DnsError): string {
  const tried = error.attempts.map((attempt) => `${attempt.server}/${attempt.transport} ${attempt.code}`).join(', ');
  return `DNS lookup of ${host} ${type} failed: ${dnsFailureInWords(error)}${tried ? ` (${tried})` : ''}.`;
}
