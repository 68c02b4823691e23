import type { ConfigVariable } from '../config-values.ts';
import { inFlightConfigVariables } from '../limits/in-flight.ts';
import { PORT_CHECK_TOOL } from './tool.ts';

// A script checks a few ports at once (80, 443, 22...); the whole cap is what a small server's sockets spare.
const portCheckCaps = inFlightConfigVariables(PORT_CHECK_TOOL, { all: 100, perClient: 4 });

export const portConfigVariables = {
  portCheckMaxInFlight: portCheckCaps.all,
  portCheckMaxInFlightPerClient: portCheckCaps.perClient,
} satisfies Record<string, ConfigVariable<unknown>>;
