import type { ProbeToolDefinition } from '../stream/probe-tool.ts';
import { PING_DEFAULT_INTERVAL_SECONDS } from './args.ts';
import { TCP_PING_TIMEOUT_MS } from './tcp-session.ts';

/** 5 s over one interval a request: ping's wait for the last reply (1 s, or two round trips). */
export const PING_TOOL = {
  name: 'ping',
  baseMs: 5000,
  perCountMs: PING_DEFAULT_INTERVAL_SECONDS * 1000,
} as const satisfies ProbeToolDefinition;

/** Each connect at its longest, plus the same 5 s. */
export const TCP_PING_TOOL = {
  name: 'tcp_ping',
  baseMs: 5000,
  perCountMs: TCP_PING_TIMEOUT_MS,
} as const satisfies ProbeToolDefinition;
