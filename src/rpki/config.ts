import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { type ConfigVariable, httpUrl, integerIn, text } from '../config-values.ts';

/** rpki-client's own hourly export of every RIR's VRPs: `asn` as a number, about 800,000 entries. */
const DEFAULT_RPKI_URL = 'https://console.rpki-client.org/vrps.json';

export const rpkiConfigVariables = {
  rpkiFeedUrl: {
    name: 'FEED_RPKI_URL',
    defaultText: `\`${DEFAULT_RPKI_URL}\``,
    description:
      'Where the updater fetches the validated ROA payloads (VRPs) for RPKI origin validation: a JSON export in the form rpki-client, Routinator (`-f json`) and Cloudflare share (`{"roas": [{"prefix", "maxLength", "asn"}]}`, `asn` a number or `"AS123"`; gzip is fine). `off` leaves RPKI out (`network.rpki` is then omitted, never guessed).',
    parse: (raw: string | undefined): string | null =>
      raw?.trim().toLowerCase() === 'off' ? null : httpUrl(DEFAULT_RPKI_URL)(raw),
  },
  rpkiVrpFile: {
    name: 'RPKI_VRP_FILE',
    defaultText: 'empty',
    description:
      "A VRP export written by the operator's own validator (same JSON forms as `FEED_RPKI_URL`), used instead of the download: read, checked and installed like a download every `RPKI_REFRESH_MINUTES` when its content changed.",
    parse: (raw: string | undefined): string | null => {
      const value = text('')(raw);
      if (value === '') return null;
      const resolved = path.resolve(value);
      try {
        accessSync(resolved, constants.R_OK);
      } catch (error) {
        throw new Error(
          `cannot read ${resolved}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
      return resolved;
    },
  },
  rpkiRefreshMinutes: {
    name: 'RPKI_REFRESH_MINUTES',
    defaultText: '30',
    description:
      'How often the service fetches the VRP set (or reads `RPKI_VRP_FILE`) between its daily data refreshes, and swaps it in without a restart; validators publish a new set every few minutes to an hour. 0: only with the other data (`DATA_REFRESH_HOURS`, `npm run data:update`). `DATA_REFRESH_HOURS=0` turns both off.',
    parse: integerIn(0, 1440, 30),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
