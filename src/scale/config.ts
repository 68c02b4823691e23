import { availableParallelism } from 'node:os';
import { type ConfigVariable, text } from '../config-values.ts';

export const scaleConfigVariables = {
  redisUrl: {
    name: 'REDIS_URL',
    defaultText: 'empty',
    description:
      'Redis for rate-limit counters, the DNS, blacklist, reverse-DNS and WHOIS caches, and key revocations, shared by every instance (`redis://[user:password@]host:port[/db]`, db 0 to 15). Empty: all in this process.',
    parse: (raw: string | undefined): string | null => {
      const value = text('')(raw);
      if (value === '') return null;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw new Error('must be a redis:// or rediss:// URL');
      }
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
        throw new Error('must be a redis:// or rediss:// URL');
      // The client takes the path as the database number and does not check it: '/abc' crashed the
      // service after it had started, and a number the server lacks left it on database 0 unsaid.
      // Redis has 16 databases unless configured otherwise.
      const db = url.pathname.replace(/^\//, '');
      if (db !== '' && !/^(?:[0-9]|1[0-5])$/.test(db)) {
        throw new Error(`the database after the host must be a number from 0 to 15, got "/${db}"`);
      }
      return value;
    },
  },
  workers: {
    name: 'WORKERS',
    defaultText: '1',
    description:
      'Worker threads serving the port in this one process (`auto`: one per core), sharing one copy of the IP data. More than one requires REDIS_URL.',
    parse: (raw: string | undefined): number => {
      const value = text('1')(raw).toLowerCase();
      if (value === 'auto') return availableParallelism();
      const count = Number(value);
      if (!Number.isInteger(count) || count < 1 || count > 256)
        throw new Error(`must be auto or 1 to 256, got "${raw}"`);
      return count;
    },
  },
} satisfies Record<string, ConfigVariable<unknown>>;
