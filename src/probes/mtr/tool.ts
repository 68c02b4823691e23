import type { ProbeToolDefinition } from '../stream/probe-tool.ts';
import { MTR_DEFAULT_GRACE_SECONDS, MTR_INTERVAL_SECONDS } from './args.ts';

/** A round a second, then mtr's grace wait for late answers, plus 5 s for its start. */
export const MTR_TOOL = {
  name: 'mtr',
  baseMs: (MTR_DEFAULT_GRACE_SECONDS + 5) * 1000,
  perCountMs: MTR_INTERVAL_SECONDS * 1000,
} as const satisfies ProbeToolDefinition;
