import { checkAddress } from '../spawn/check-address.ts';

export interface PingOptions {
  /** A literal IPv4 or IPv6 address; names are resolved by the service, never by ping. */
  address: string;
  family: 4 | 6;
  /** Echo requests to send. */
  count: number;
  /** How long to wait for the last reply when nothing came back (ping -W). Default 1. */
  timeoutSeconds?: number;
  /** Gap between echo requests (ping -i). Default 1, at least 0.2 (ping's own limit for non-root). */
  intervalSeconds?: number;
}

export const PING_DEFAULT_TIMEOUT_SECONDS = 1;
export const PING_DEFAULT_INTERVAL_SECONDS = 1;

/**
 * Arguments for iputils ping: `-n -O -c COUNT -i INTERVAL -W TIMEOUT -4|-6 ADDRESS`.
 *
 * -O makes ping print `no answer yet for icmp_seq=N` for every unanswered request, so timeouts stream
 * as they happen (except the last request's: ping exits without that line; see `unansweredSeqs`).
 * No -w (ping's own deadline): the stream has its own wall-clock time limit, and -w changes two
 * things, both measured with iputils 20221126: ping keeps sending past COUNT until COUNT replies
 * arrive or the deadline passes, and it stops at the first ICMP error, so a caller asking for 4
 * packets to an unreachable host would see 1 result instead of 4 (as in a terminal). ping still ends
 * by itself: after COUNT requests it waits -W for the last reply when nothing came back, else twice
 * the longest round trip.
 */
export function buildPingArgs(opts: PingOptions): string[] {
  const address = checkAddress(opts.address, opts.family);
  const { count } = opts;
  const timeout = opts.timeoutSeconds ?? PING_DEFAULT_TIMEOUT_SECONDS;
  const interval = opts.intervalSeconds ?? PING_DEFAULT_INTERVAL_SECONDS;
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`ping count must be a positive integer, got ${count}`);
  }
  if (!Number.isFinite(interval) || interval < 0.2) {
    throw new RangeError(`ping interval must be at least 0.2 seconds, got ${interval}`);
  }
  if (!Number.isFinite(timeout) || timeout <= 0) {
    throw new RangeError(`ping timeout must be a positive number of seconds, got ${timeout}`);
  }
  return ['-n', '-O', '-c', String(count), '-i', String(interval), '-W', String(timeout), `-${opts.family}`, address];
}
