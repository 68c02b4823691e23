import { isIPv6 } from 'node:net';
import { forbiddenTargetReason, type TargetPolicy } from '../dns/target-policy.ts';
import { type TcpConnectOutcome, timeTcpConnect } from '../net/tcp-connect.ts';
import { PORT_CHECK_TIMEOUT_MS } from './tool.ts';

export interface PortCheck {
  ip: string;
  port: number;
  reachable: boolean;
  time_ms: number | null;
  reason: Extract<TcpConnectOutcome, { kind: 'failed' }>['reason'] | null;
}

export interface PortChecker {
  /** Null when the policy lets the service connect to `ip`, else why not, in words. */
  refusal(ip: string): string | null;
  /** One connect to `ip` (the caller's own address, never another), ended within PORT_CHECK_TIMEOUT_MS. */
  check(ip: string, port: number): Promise<PortCheck>;
}

// A check is over in 2 s whatever happens, so a client that leaves does not stop it.
const NEVER_ABORTED = new AbortController().signal;

export function createPortChecker(policy: TargetPolicy): PortChecker {
  return {
    refusal: (ip) => forbiddenTargetReason(ip, policy),
    async check(ip, port) {
      const outcome = await timeTcpConnect({
        address: ip,
        port,
        family: isIPv6(ip) ? 6 : 4,
        timeoutMs: PORT_CHECK_TIMEOUT_MS,
        signal: NEVER_ABORTED,
      });
      if (outcome.kind === 'connected') return { ip, port, reachable: true, time_ms: outcome.ms, reason: null };
      if (outcome.kind === 'failed') return { ip, port, reachable: false, time_ms: null, reason: outcome.reason };
      throw new Error('a port check was stopped, but nothing stops one');
    },
  };
}

/** A port as echoip reads it (Go's ParseUint, base 10, 16 bits): digits only, leading zeros allowed, 1 to 65535. */
export function parsePortNumber(text: string): number | null {
  if (!/^[0-9]+$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}
