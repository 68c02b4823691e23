import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { createMonitorRepository } from '../../src/monitors/monitor-repository.ts';
import { openPostgresSql, openSqliteSql } from '../../src/monitors/sql.ts';
import { openPostgresRepository } from '../../src/storage/postgres.ts';
import { openSqliteRepository } from '../../src/storage/sqlite.ts';
import { freshDatabase, postgresSkipReason, startPostgres, type TestPostgres } from '../support/postgres-server.ts';
import { monitorRepositoryContract } from './repository-contract.ts';

monitorRepositoryContract('SQLite', async () => {
  const directory = await mkdtemp(path.join(tmpdir(), 'netinfo-monitors-'));
  const file = path.join(directory, 'netinfo.db');
  const accounts = openSqliteRepository(file);
  const monitors = createMonitorRepository(await openSqliteSql({ kind: 'sqlite', file }, directory));
  return { accounts, monitors, cleanup: () => rm(directory, { recursive: true, force: true }) };
});

if (postgresSkipReason) console.log(`# PostgreSQL monitor repository tests skipped: ${postgresSkipReason}`);
else {
  let server: TestPostgres | undefined;
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await server?.stop();
  });
  monitorRepositoryContract('PostgreSQL', async () => {
    if (!server) throw new Error('no server');
    const url = await freshDatabase(server);
    const accounts = await openPostgresRepository(url);
    const monitors = createMonitorRepository(await openPostgresSql(url, () => {}));
    return { accounts, monitors, cleanup: async () => {} };
  });
}
