import { MTR_TOOL } from './mtr/tool.ts';
import { PING_TOOL, TCP_PING_TOOL } from './ping/tool.ts';
import { TRACEROUTE_TOOL } from './traceroute/tool.ts';

/** Every probe tool: the values of netinfo_streams_*{tool}. */
export const PROBE_TOOLS = [PING_TOOL, TCP_PING_TOOL, TRACEROUTE_TOOL, MTR_TOOL];
