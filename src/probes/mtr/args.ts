import { checkAddress } from '../spawn/check-address.ts';

export interface MtrOptions {
  /** A literal IPv4 or IPv6 address; names are resolved by the service, never by mtr. */
  address: string;
  family: 4 | 6;
  /** Rounds to send (mtr -c): one probe per hop each round, one round a second. */
  count: number;
  /** Highest TTL probed (mtr -m), 1-255. Default 30, mtr's own default. */
  maxHops?: number;
  /** How long mtr waits for answers after its last round (mtr -G), in seconds. Default 2. */
  graceSeconds?: number;
}

export const MTR_DEFAULT_MAX_HOPS = 30;
export const MTR_DEFAULT_GRACE_SECONDS = 2;
/** mtr's own interval between rounds (-i); below 1 s it needs root, so it is left alone. */
export const MTR_INTERVAL_SECONDS = 1;

/**
 * Arguments for mtr (Debian's mtr-tiny, 0.95): `--raw -n -c COUNT -G GRACE -m MAX_HOPS -4|-6 ADDRESS`.
 *
 * --raw: one line per event as it happens (a probe sent, a hop's address, a reply), which the
 * service turns into statistics itself; -n: no reverse lookups by mtr (the service looks names up
 * through its own resolver); -G 2 instead of mtr's 5 s wait after the last round, so a run of
 * `count` rounds ends about 2 s after its last probe.
 */
export function buildMtrArgs(opts: MtrOptions): string[] {
  const address = checkAddress(opts.address, opts.family);
  const { count } = opts;
  const maxHops = opts.maxHops ?? MTR_DEFAULT_MAX_HOPS;
  const grace = opts.graceSeconds ?? MTR_DEFAULT_GRACE_SECONDS;
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`mtr count must be a positive integer, got ${count}`);
  }
  if (!Number.isSafeInteger(maxHops) || maxHops < 1 || maxHops > 255) {
    throw new RangeError(`mtr maxHops must be an integer from 1 to 255, got ${maxHops}`);
  }
  if (!Number.isSafeInteger(grace) || grace < 1 || grace > 60) {
    throw new RangeError(`mtr graceSeconds must be an integer from 1 to 60, got ${grace}`);
  }
  return ['--raw', '-n', '-c', String(count), '-G', String(grace), '-m', String(maxHops), `-${opts.family}`, address];
}
