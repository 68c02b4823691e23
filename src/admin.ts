// `npm run admin -- <command>`, on the database the service uses (read from the same environment).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_USAGE, runAdminCommand } from './accounts/admin-commands.ts';
import { buildKeyring, type Keyring } from './accounts/keyring.ts';
import { MASTER_KEY_FILE, parseMasterKeys } from './accounts/master-key.ts';
import { announcingOwnerChanges } from './accounts/owner-changes.ts';
import { type Config, loadConfigOrExit } from './config.ts';
import { webhookSecretAad } from './monitors/repository.ts';
import { createRedisClient } from './scale/redis.ts';
import { createRedisOwnerChanges } from './scale/redis-owner-changes.ts';
import { databaseFile } from './storage/config.ts';
import { openRepository } from './storage/open.ts';

function readKeyringFile(dataDir: string): Keyring | undefined {
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(file)) return undefined;
  return buildKeyring(parseMasterKeys(readFileSync(file, 'utf8'), file));
}

async function openMonitors(config: Config) {
  const { createMonitorRepository } = await import('./monitors/monitor-repository.ts');
  const { openMonitorSql } = await import('./monitors/sql.ts');
  return createMonitorRepository(
    await openMonitorSql(config.database, config.dataDir, (error) =>
      console.error(`admin: database: ${error.message}`),
    ),
  );
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.length === 0 || args[0] === 'help' || args[0] === '--help') {
    console.log(ADMIN_USAGE);
    return args.length === 0 ? 1 : 0;
  }
  const config = loadConfigOrExit(1);
  if (config.database.kind !== 'postgres') {
    // Opening SQLite creates the file: with a mistyped DATA_DIR the command would report an empty,
    // new database ("0 accounts") instead of saying it is looking in the wrong place.
    const file = databaseFile(config.database, config.dataDir);
    if (!existsSync(file)) {
      console.error(`no account database at ${file}: run this with the service's DATA_DIR (or DATABASE_URL)`);
      return 1;
    }
  }
  const stored = await openRepository(config.database, config.dataDir);
  // With several instances, tell them at once that a plan or an account's state changed.
  const redis = config.redisUrl ? createRedisClient(config.redisUrl) : null;
  redis?.on('error', () => {});
  const repository = redis ? announcingOwnerChanges(stored, createRedisOwnerChanges(redis)) : stored;
  // Only rotate-keys needs the master keys (reading them never creates one) and the monitors' table.
  const monitors = args[0] === 'rotate-keys' ? await openMonitors(config) : undefined;
  try {
    const keyring = config.masterKey ? buildKeyring(config.masterKey) : readKeyringFile(config.dataDir);
    return await runAdminCommand(args, {
      repository,
      now: Date.now,
      print: (line) => console.log(line),
      ...(keyring ? { keyring } : {}),
      ...(monitors ? { webhookSecrets: { ...monitors, aad: webhookSecretAad } } : {}),
    });
  } finally {
    await monitors?.close();
    await repository.close();
    redis?.disconnect();
  }
}

process.exitCode = await main().catch((error: Error) => {
  // One line, not a stack trace (an unreachable database, say); messages never carry a password.
  console.error(`admin: ${error.message}`);
  return 1;
});
