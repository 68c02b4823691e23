import type { ConfigVariable } from '../config-values.ts';
import { inFlightConfigVariables } from '../limits/in-flight.ts';
import { MAIL_TOOL } from './tool.ts';

const mailCaps = inFlightConfigVariables(MAIL_TOOL, { all: 50, perClient: 3 });

export const mailConfigVariables = {
  mailMaxInFlight: mailCaps.all,
  mailMaxInFlightPerClient: mailCaps.perClient,
} satisfies Record<string, ConfigVariable<unknown>>;
