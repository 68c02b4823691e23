import { deriveKeyMaterial, type KeyMaterial } from './key-crypto.ts';
import type { VersionedMasterKey } from './master-key.ts';

/**
 * Every master key the service knows, newest first. New API keys, lookup hashes and CSRF tokens use
 * the current one; keys stored under an older version still verify until `npm run admin --
 * rotate-keys` has re-encrypted them, so a master key is rotated without refusing anyone.
 */
export interface Keyring {
  readonly current: KeyMaterial;
  /** Current first, then older versions, newest to oldest. */
  readonly all: readonly KeyMaterial[];
  byVersion(version: number): KeyMaterial | undefined;
}

export function buildKeyring(keys: readonly VersionedMasterKey[]): Keyring {
  const all = keys.map((entry) => deriveKeyMaterial(entry.key, entry.version));
  const current = all[0];
  if (!current) throw new Error('no master key');
  const byVersion = new Map(all.map((material) => [material.version, material]));
  return Object.freeze({ current, all: Object.freeze(all), byVersion: (version: number) => byVersion.get(version) });
}
