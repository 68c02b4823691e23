import { randomBytes } from 'node:crypto';
import type { Plan } from '../storage/repository.ts';
import { timeOrNull } from '../storage/rows.ts';
import { json, parsed, toDelivery, toIncident, toMonitor, toRun } from './monitor-rows.ts';
import type { DeliveryRecord, IncidentRecord, MonitorRecord, MonitorRepository, StateChange } from './repository.ts';
import type { Sql } from './sql.ts';
import { changes } from './tick.ts';

const SETTINGS = `name = ?, type = ?, target = ?, options = ?, interval_seconds = ?, locations = ?, conditions = ?,
  webhooks = ?, emails = ?, paused_at = ?`;
const settingsValues = (m: MonitorRecord | Parameters<MonitorRepository['updateMonitor']>[2]) => [
  m.name,
  m.type,
  m.target,
  json(m.options),
  m.intervalSeconds,
  json(m.locations),
  json(m.conditions),
  json(m.webhooks),
  json(m.emails),
  m.pausedAt,
];

const insertDelivery = (sql: Sql, d: DeliveryRecord) =>
  sql.run(
    `INSERT INTO monitor_deliveries (id, monitor_id, url, event, body, created_at, state, attempts, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [d.id, d.monitorId, d.url, d.event, d.body, d.createdAt, d.state, json(d.attempts), d.nextAttemptAt],
  );

/** The monitors' repository, one for both databases (sql.ts speaks to each). */
export function createMonitorRepository(sql: Sql): MonitorRepository {
  const one = async (text: string, values: readonly unknown[]) => (await sql.all(text, values))[0];
  return {
    async createMonitor(m, quota) {
      return sql.transaction(async (tx) => {
        // A write to the account's row first: PostgreSQL holds its lock to the commit, so creations
        // of one account at the quota's edge count one after another (SQLite's BEGIN IMMEDIATE already does).
        await tx.run('UPDATE accounts SET plan = plan WHERE id = ?', [m.accountId]);
        const [count] = await tx.all('SELECT COUNT(*) AS count FROM monitors WHERE account_id = ?', [m.accountId]);
        if (Number(count?.count) >= quota) return 'quota-reached' as const;
        await tx.run(
          `INSERT INTO monitors (id, account_id, name, type, target, options, interval_seconds, locations, conditions,
             webhooks, emails, paused_at, secret_version, secret_nonce, secret_ciphertext, secret_tag, created_at,
             updated_at, next_run_at, state, state_since, state_due_at, baseline)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL)`,
          [
            m.id,
            m.accountId,
            ...settingsValues(m),
            m.secret.keyVersion,
            m.secret.nonce,
            m.secret.ciphertext,
            m.secret.tag,
            m.createdAt,
            m.updatedAt,
            m.nextRunAt,
          ],
        );
        return 'created' as const;
      });
    },
    async findMonitor(accountId, id) {
      const row = await one('SELECT * FROM monitors WHERE id = ? AND account_id = ?', [id, accountId]);
      return row && toMonitor(row);
    },
    async monitorById(id) {
      const row = await one(
        `SELECT m.*, a.plan AS account_plan, a.disabled_at AS account_disabled_at
         FROM monitors m JOIN accounts a ON a.id = m.account_id WHERE m.id = ?`,
        [id],
      );
      if (row === undefined) return undefined;
      return {
        ...toMonitor(row),
        plan: String(row.account_plan) as Plan,
        accountDisabled: row.account_disabled_at !== null,
      };
    },
    async listMonitors(accountId) {
      return (await sql.all('SELECT * FROM monitors WHERE account_id = ? ORDER BY created_at, id', [accountId])).map(
        toMonitor,
      );
    },
    async listScheduled() {
      const rows = await sql.all(
        `SELECT m.id, m.interval_seconds, m.next_run_at FROM monitors m JOIN accounts a ON a.id = m.account_id
         WHERE m.paused_at IS NULL AND a.disabled_at IS NULL`,
      );
      return rows.map((row) => ({
        id: String(row.id),
        intervalSeconds: Number(row.interval_seconds),
        nextRunAt: timeOrNull(row.next_run_at),
      }));
    },
    async updateMonitor(accountId, id, settings, at, resetState) {
      const reset = resetState ? ', state = NULL, state_since = NULL, state_due_at = NULL, baseline = NULL' : '';
      const changed = await sql.run(
        `UPDATE monitors SET ${SETTINGS}, updated_at = ?${reset} WHERE id = ? AND account_id = ?`,
        [...settingsValues(settings), at, id, accountId],
      );
      return changed === 0 ? undefined : this.findMonitor(accountId, id);
    },
    async deleteMonitor(accountId, id) {
      return (await sql.run('DELETE FROM monitors WHERE id = ? AND account_id = ?', [id, accountId])) === 1;
    },
    async listSecretsNotAtVersion(version) {
      const rows = await sql.all('SELECT * FROM monitors WHERE secret_version <> ? ORDER BY id', [version]);
      return rows.map((row) => ({ id: String(row.id), secret: toMonitor(row).secret }));
    },
    async oneSecretPerVersion() {
      const rows = await sql.all(
        'SELECT * FROM monitors WHERE id IN (SELECT MIN(id) FROM monitors GROUP BY secret_version) ORDER BY secret_version',
      );
      return rows.map((row) => ({ id: String(row.id), secret: toMonitor(row).secret }));
    },
    async replaceSecret(id, fromVersion, secret) {
      const changed = await sql.run(
        `UPDATE monitors SET secret_version = ?, secret_nonce = ?, secret_ciphertext = ?, secret_tag = ?
         WHERE id = ? AND secret_version = ?`,
        [secret.keyVersion, secret.nonce, secret.ciphertext, secret.tag, id, fromVersion],
      );
      return changed === 1;
    },

    async recordTick(tick, notify) {
      return sql
        .transaction(async (tx) => {
          const row = await tx.all('SELECT * FROM monitors WHERE id = ?', [tick.monitorId]);
          if (row[0] === undefined) return { recorded: false } as const;
          const monitor = toMonitor(row[0]);
          for (const run of tick.runs) {
            const inserted = await tx.run(
              `INSERT INTO monitor_runs (id, monitor_id, due_at, started_at, node, duration_ms, response_ms, state, cause, summary)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (monitor_id, due_at, node) DO NOTHING`,
              [
                run.id,
                run.monitorId,
                run.dueAt,
                run.startedAt,
                run.node,
                run.durationMs,
                run.responseMs,
                run.state,
                run.cause,
                json(run.summary),
              ],
            );
            // Recorded already: this tick was taken over from an instance that turned out to be alive.
            if (inserted === 0) throw new AlreadyRecorded();
          }
          if (tick.nextRunAt !== undefined) {
            await tx.run(
              'UPDATE monitors SET next_run_at = ? WHERE id = ? AND (next_run_at IS NULL OR next_run_at < ?)',
              [tick.nextRunAt, monitor.id, tick.nextRunAt],
            );
          }
          if (tick.baseline !== undefined && monitor.baseline === null) {
            await tx.run('UPDATE monitors SET baseline = ? WHERE id = ?', [json(tick.baseline), monitor.id]);
          }
          if (!changes(monitor, tick) || tick.state === null) return { recorded: true, change: null, deliveries: [] };
          await tx.run('UPDATE monitors SET state = ?, state_since = ?, state_due_at = ? WHERE id = ?', [
            tick.state,
            tick.at,
            tick.dueAt,
            monitor.id,
          ]);
          const [open] = await tx.all('SELECT * FROM monitor_incidents WHERE monitor_id = ? AND ended_at IS NULL', [
            monitor.id,
          ]);
          let incident: IncidentRecord | null = null;
          if (tick.state === 'down' && open === undefined) {
            incident = {
              id: randomBytes(12).toString('hex'),
              monitorId: monitor.id,
              startedAt: tick.at,
              endedAt: null,
              cause: tick.cause ?? 'down',
            };
            await tx.run(
              'INSERT INTO monitor_incidents (id, monitor_id, started_at, ended_at, cause) VALUES (?, ?, ?, NULL, ?)',
              [incident.id, monitor.id, incident.startedAt, incident.cause],
            );
          } else if (open !== undefined) {
            incident = { ...toIncident(open), endedAt: tick.state === 'up' ? tick.at : null };
            if (tick.state === 'up')
              await tx.run('UPDATE monitor_incidents SET ended_at = ? WHERE id = ?', [tick.at, incident.id]);
          }
          const change: StateChange = { monitor, state: tick.state, previous: monitor.state, incident };
          const deliveries = notify(change);
          for (const delivery of deliveries) await insertDelivery(tx, delivery);
          return { recorded: true, change, deliveries };
        })
        .catch((error) => {
          // PostgreSQL's transaction wraps what it throws (storage/postgres-connection.ts).
          if (error instanceof AlreadyRecorded || (error as Error).cause instanceof AlreadyRecorded) {
            return { recorded: false } as const;
          }
          throw error;
        });
    },
    async listRuns(monitorId, limit, before) {
      const rows = before
        ? await sql.all(
            `SELECT * FROM monitor_runs WHERE monitor_id = ? AND (started_at < ? OR (started_at = ? AND id < ?))
             ORDER BY started_at DESC, id DESC LIMIT ?`,
            [monitorId, before.startedAt, before.startedAt, before.id, limit],
          )
        : await sql.all('SELECT * FROM monitor_runs WHERE monitor_id = ? ORDER BY started_at DESC, id DESC LIMIT ?', [
            monitorId,
            limit,
          ]);
      return rows.map(toRun);
    },
    async uptime(monitorId, since) {
      const counts = [];
      for (const start of since) {
        const row = await one(
          `SELECT COUNT(CASE WHEN state = 'up' THEN 1 END) AS up, COUNT(CASE WHEN state <> 'error' THEN 1 END) AS total
           FROM monitor_runs WHERE monitor_id = ? AND started_at >= ?`,
          [monitorId, start],
        );
        counts.push({ up: Number(row?.up ?? 0), total: Number(row?.total ?? 0) });
      }
      return counts;
    },
    async listIncidents(monitorId, limit) {
      const rows = await sql.all(
        'SELECT * FROM monitor_incidents WHERE monitor_id = ? ORDER BY started_at DESC, id DESC LIMIT ?',
        [monitorId, limit],
      );
      return rows.map(toIncident);
    },
    async openIncident(monitorId) {
      const row = await one('SELECT * FROM monitor_incidents WHERE monitor_id = ? AND ended_at IS NULL', [monitorId]);
      return row && toIncident(row);
    },

    async listDeliveries(monitorId, limit) {
      const rows = await sql.all(
        'SELECT * FROM monitor_deliveries WHERE monitor_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
        [monitorId, limit],
      );
      return rows.map(toDelivery);
    },
    async dueDeliveries(at, limit) {
      const rows = await sql.all(
        `SELECT * FROM monitor_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
         ORDER BY next_attempt_at, id LIMIT ?`,
        [at, limit],
      );
      return rows.map(toDelivery);
    },
    async deliveryById(id) {
      const row = await one('SELECT * FROM monitor_deliveries WHERE id = ?', [id]);
      return row && toDelivery(row);
    },
    async recordAttempt(id, attempt, state, nextAttemptAt, removeWebhook) {
      await sql.transaction(async (tx) => {
        const [row] = await tx.all('SELECT * FROM monitor_deliveries WHERE id = ?', [id]);
        if (row === undefined) return;
        const delivery = toDelivery(row);
        await tx.run('UPDATE monitor_deliveries SET attempts = ?, state = ?, next_attempt_at = ? WHERE id = ?', [
          json([...delivery.attempts, attempt]),
          state,
          nextAttemptAt,
          id,
        ]);
        if (!removeWebhook) return;
        const [owner] = await tx.all('SELECT webhooks FROM monitors WHERE id = ?', [delivery.monitorId]);
        if (owner === undefined) return;
        const kept = (parsed(owner.webhooks) as string[]).filter((url) => url !== delivery.url);
        await tx.run('UPDATE monitors SET webhooks = ? WHERE id = ?', [json(kept), delivery.monitorId]);
      });
    },

    async prune(before) {
      return sql.transaction(async (tx) => {
        let deleted = await tx.run('DELETE FROM monitor_runs WHERE started_at < ?', [before]);
        deleted += await tx.run('DELETE FROM monitor_incidents WHERE ended_at IS NOT NULL AND ended_at < ?', [before]);
        deleted += await tx.run("DELETE FROM monitor_deliveries WHERE state <> 'pending' AND created_at < ?", [before]);
        return deleted;
      });
    },
    close: () => sql.close(),
  };
}

class AlreadyRecorded extends Error {}
