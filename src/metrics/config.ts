import { isIP } from 'node:net';
import { type ConfigVariable, integerIn, text } from '../config-values.ts';

export const metricsConfigVariables = {
  metricsPort: {
    name: 'METRICS_PORT',
    defaultText: '9464',
    description:
      'TCP port of the Prometheus listener (`/metrics`), separate from the public port (it must differ from `PORT`) and never rate-limited; 0 turns it off. Several instances on one machine each need their own (or 0); a port that is taken stops the start.',
    parse: integerIn(0, 65535, 9464),
  },
  metricsHost: {
    name: 'METRICS_HOST',
    defaultText: '`127.0.0.1`',
    description: 'Listen address of the Prometheus listener; loopback by default, so only this machine can scrape it.',
    parse: (raw: string | undefined): string => {
      const value = text('127.0.0.1')(raw);
      if (isIP(value) === 0 && value.includes(':')) {
        throw new Error(`must be an address or a host name without a port (set METRICS_PORT for that), got "${value}"`);
      }
      return value;
    },
  },
} satisfies Record<string, ConfigVariable<unknown>>;

export interface MetricsConfig {
  readonly metricsPort: number;
  readonly metricsHost: string;
}
