import { type ConfigVariable, integerIn } from '../config-values.ts';
import { parseMasterKeys, type VersionedMasterKey } from './master-key.ts';

export const accountsConfigVariables = {
  masterKey: {
    name: 'MASTER_KEY',
    defaultText: 'generated at first start into `DATA_DIR/master.key` (mode 0600)',
    description:
      'Base64 of 32 random bytes (`openssl rand -base64 32`): the key that encrypts API keys at rest (AES-256-GCM) and keys their lookup hash. To rotate it, list versions newest first, `v2:<new>,v1:<old>` (see the deployment guide). Keep it with your backups of the database: without it no stored key can be verified.',
    parse: (raw: string | undefined): VersionedMasterKey[] | null =>
      raw === undefined || raw.trim() === '' ? null : parseMasterKeys(raw, 'the value'),
  },
  sessionIdleMinutes: {
    name: 'SESSION_IDLE_MINUTES',
    defaultText: '720',
    description:
      'A dashboard session unused for this long ends (the user logs in again); no session lasts more than 30 days.',
    parse: integerIn(5, 43_200, 720),
  },
} satisfies Record<string, ConfigVariable<unknown>>;
