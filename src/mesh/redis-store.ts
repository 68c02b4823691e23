import { setTimeout as sleep } from 'node:timers/promises';
import type { ClientContext, Redis, Result } from 'ioredis';
import type { SignedJob } from './job.ts';
import type { NodeInfo } from './node-info.ts';
import type { AppendOutcome, MeasurementState, MeshStore, ProbeEnd, ProbeStatus, StoredEvent } from './store.ts';

// Keys, under `netinfo:mesh:<scope>:` (the scope a hash of MESH_SECRET, so two meshes on one Redis
// never meet):
//   node:<name>     the node's description, expiring NODE_TIMEOUT_SECONDS after its last heartbeat
//   runner:<id>     one process of a node, expiring two heartbeats after its last
//   nodes           the names ever announced (pruned when read)
//   jobs:<name>     the node's job stream, read by its processes through the group `runners`
//   m:<id>          a measurement: `record`, `total`, `ended`, per probe `s:<i>` (status),
//                   `n:<i>` (its node), `c:<i>` (its runner), `e:<i>` (how it ended)
//   m:<id>:events   its events (stream); each append is also published on the channel m:<id>
//   m:<id>:queued   there while its probes may still be waiting to be taken (NODE_TIMEOUT_SECONDS)

/** Claims a queued probe for a runner. KEYS: m. ARGV: probe, runner. */
const CLAIM = `
if redis.call('HGET', KEYS[1], 's:' .. ARGV[1]) ~= 'queued' then return 0 end
redis.call('HSET', KEYS[1], 's:' .. ARGV[1], 'in-progress', 'c:' .. ARGV[1], ARGV[2])
return 1`;

// The one way events are added (APPEND and SWEEP both call it): nothing after a probe's end, and
// measurement_done exactly once, after the last end.
const APPEND_FUNCTION = `
local function append(m, events, channel, probe, event, status, ending)
  local s = redis.call('HGET', m, 's:' .. probe)
  if not s then return -1 end
  if s == 'finished' or s == 'failed' then return 0 end
  local id = redis.call('XADD', events, '*', 'e', event)
  if status ~= '' then
    redis.call('HSET', m, 's:' .. probe, status, 'e:' .. probe, ending)
    if redis.call('HINCRBY', m, 'ended', 1) == tonumber(redis.call('HGET', m, 'total')) then
      redis.call('XADD', events, '*', 'e', '{"type":"measurement_done"}')
    end
  end
  redis.call('PUBLISH', channel, id)
  return 1
end`;

/** KEYS: m, events. ARGV: channel, probe, event, status ('' or the end's), end JSON. */
const APPEND = `${APPEND_FUNCTION}
return append(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])`;

/**
 * Ends the probes that cannot end by themselves, by Redis's expiry of keys (the nodes' clocks may
 * differ): queued on a node that is gone, or not taken while `queued` lived (ARGV[3] ms), or in
 * progress on a runner that stopped announcing itself. KEYS: m, events, queued. ARGV: channel, key
 * prefix, ms to take a job.
 */
const SWEEP = `${APPEND_FUNCTION}
local total = tonumber(redis.call('HGET', KEYS[1], 'total'))
if not total then return 0 end
local waiting = redis.call('EXISTS', KEYS[3]) == 1
local swept = 0
for i = 0, total - 1 do
  local s = redis.call('HGET', KEYS[1], 's:' .. i)
  local node = redis.call('HGET', KEYS[1], 'n:' .. i)
  local why = nil
  if s == 'queued' then
    if redis.call('EXISTS', ARGV[2] .. 'node:' .. node) == 0 then
      why = 'node ' .. node .. ' went silent before it took the probe'
    elseif not waiting then
      why = 'node ' .. node .. ' did not take the probe within ' .. math.floor(tonumber(ARGV[3]) / 1000) .. ' s'
    end
  elseif s == 'in-progress' then
    local runner = redis.call('HGET', KEYS[1], 'c:' .. i)
    if redis.call('EXISTS', ARGV[2] .. 'runner:' .. runner) == 0 then
      why = 'node ' .. node .. ' went silent during the probe'
    end
  end
  if why then
    local event = cjson.encode({type = 'error', node = node, message = why})
    local ending = cjson.encode({status = 'failed', error = why})
    swept = swept + append(KEYS[1], KEYS[2], ARGV[1], tostring(i), event, 'failed', ending)
  end
end
return swept`;

/** KEYS: nodes set. ARGV: prefix. Answers the live nodes' descriptions and forgets the others. */
const NODES = `
local names = redis.call('SMEMBERS', KEYS[1])
local live = {}
for _, name in ipairs(names) do
  local node = redis.call('GET', ARGV[1] .. 'node:' .. name)
  if node then table.insert(live, node) else redis.call('SREM', KEYS[1], name) end
end
return live`;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    netinfoMeshClaim(...args: (string | number)[]): Result<number, Context>;
    netinfoMeshAppend(...args: (string | number)[]): Result<number, Context>;
    netinfoMeshSweep(...args: (string | number)[]): Result<number, Context>;
    netinfoMeshNodes(...args: (string | number)[]): Result<string[], Context>;
  }
}

const JOB_STREAM_LENGTH = 10_000;
/**
 * A runner says it is alive every half heartbeat and is taken for dead one and a half heartbeats
 * after it last did; watchers sweep every half heartbeat: a node that dies mid-probe is noticed
 * within two heartbeats, and a runner may be a whole heartbeat late (a busy event loop) before
 * it is wrongly given up.
 */
const RUNNER_TTL = 1.5;

export interface RedisMeshOptions {
  /** `netinfo:mesh:<scope>:`. */
  prefix: string;
  heartbeatMs: number;
  nodeTimeoutMs: number;
  ttlMs: number;
  log: { warn(object: object, message: string): void; error(object: object, message: string): void };
}

export function createRedisMeshStore(redis: Redis, options: RedisMeshOptions): MeshStore {
  const { prefix, heartbeatMs, nodeTimeoutMs, ttlMs, log } = options;
  // EVALSHA: the scripts' text is sent once, not with every event.
  redis.defineCommand('netinfoMeshClaim', { numberOfKeys: 1, lua: CLAIM });
  redis.defineCommand('netinfoMeshAppend', { numberOfKeys: 2, lua: APPEND });
  redis.defineCommand('netinfoMeshSweep', { numberOfKeys: 3, lua: SWEEP });
  redis.defineCommand('netinfoMeshNodes', { numberOfKeys: 1, lua: NODES });
  const key = {
    node: (name: string) => `${prefix}node:${name}`,
    runner: (id: string) => `${prefix}runner:${id}`,
    nodes: `${prefix}nodes`,
    jobs: (name: string) => `${prefix}jobs:${name}`,
    m: (id: string) => `${prefix}m:${id}`,
    events: (id: string) => `${prefix}m:${id}:events`,
    queued: (id: string) => `${prefix}m:${id}:queued`,
  };
  // Blocking reads and subscriptions each hold a connection of their own, without the command
  // time-out the shared one has (a blocking read is meant to wait).
  const blocking = redis.duplicate({ commandTimeout: undefined, enableOfflineQueue: true });
  const subscriber = redis.duplicate({ commandTimeout: undefined, enableOfflineQueue: true });
  for (const connection of [blocking, subscriber]) connection.on('error', () => {});
  const watchers = new Map<string, { callbacks: Set<() => void>; subscribed: Promise<void> }>();
  subscriber.on('message', (channel: string) => {
    for (const changed of watchers.get(channel)?.callbacks ?? []) changed();
  });
  let closed = false;
  // After Redis comes back (a restart keeps the runners' keys with their old expiry times, which may
  // have passed), the runners need a moment to say again that they live: no sweep judges silence
  // until this connection has been up for as long as a runner's word lasts.
  let upSince = redis.status === 'ready' ? performance.now() : Number.POSITIVE_INFINITY;
  redis.on('ready', () => {
    upSince = performance.now();
  });
  redis.on('close', () => {
    upSince = Number.POSITIVE_INFINITY;
  });

  const readState = (fields: Record<string, string>): MeasurementState | null => {
    if (fields.record === undefined) return null;
    const record = JSON.parse(fields.record);
    return {
      record,
      probes: record.probes.map((_: unknown, i: number) => {
        const status = (fields[`s:${i}`] ?? 'queued') as ProbeStatus;
        const end = fields[`e:${i}`];
        return end === undefined ? { status } : { status, end: JSON.parse(end) as ProbeEnd };
      }),
    };
  };

  async function consumeLoop(node: string, runner: string, run: (job: SignedJob) => void) {
    const stream = key.jobs(node);
    let fresh = true;
    while (!closed) {
      try {
        if (fresh) {
          // `$`: a node that starts does not run jobs left from before it started.
          await blocking.xgroup('CREATE', stream, 'runners', '$', 'MKSTREAM').catch((error: Error) => {
            if (!error.message.includes('BUSYGROUP')) throw error;
          });
          fresh = false;
        }
        const reply = (await blocking.xreadgroup(
          'GROUP',
          'runners',
          runner,
          'COUNT',
          32,
          'BLOCK',
          heartbeatMs,
          'NOACK',
          'STREAMS',
          stream,
          '>',
        )) as [string, [string, string[]][]][] | null;
        for (const [, entries] of reply ?? []) {
          for (const [, fields] of entries) {
            const job = fields[fields.indexOf('job') + 1];
            const signature = fields[fields.indexOf('sig') + 1];
            if (job !== undefined && signature !== undefined) run({ json: job, signature });
          }
        }
      } catch (error) {
        if (closed) return;
        // A Redis that restarted without its data lost the group: made again on the next turn.
        if ((error as Error).message.includes('NOGROUP')) fresh = true;
        else log.warn({ err: { message: (error as Error).message } }, 'mesh: reading jobs failed; retrying');
        await sleep(500);
      }
    }
  }

  return {
    async announce(node, runner) {
      await redis
        .multi()
        .set(key.node(node.name), JSON.stringify(node), 'PX', nodeTimeoutMs)
        .set(key.runner(runner), '1', 'PX', RUNNER_TTL * heartbeatMs)
        .sadd(key.nodes, node.name)
        .exec();
    },
    async keepAlive(runner) {
      await redis.set(key.runner(runner), '1', 'PX', RUNNER_TTL * heartbeatMs);
    },
    async nodes() {
      const live = await redis.netinfoMeshNodes(key.nodes, prefix);
      return live.map((json) => JSON.parse(json) as NodeInfo);
    },
    async create(record, jobs) {
      const fields: Record<string, string> = {
        record: JSON.stringify(record),
        total: String(record.probes.length),
        ended: '0',
      };
      for (const [i, probe] of record.probes.entries()) {
        fields[`s:${i}`] = 'queued';
        fields[`n:${i}`] = probe.node;
      }
      const m = key.m(record.id);
      const events = key.events(record.id);
      // The events stream made now, empty, with its expiry: appends then need not touch it.
      const batch = redis
        .multi()
        .hset(m, fields)
        .pexpire(m, ttlMs)
        .xadd(events, '*', 'e', '')
        .xtrim(events, 'MAXLEN', 0)
        .pexpire(events, ttlMs)
        .set(key.queued(record.id), '1', 'PX', nodeTimeoutMs);
      for (const { node, job } of jobs) {
        batch.xadd(key.jobs(node), 'MAXLEN', '~', JOB_STREAM_LENGTH, '*', 'job', job.json, 'sig', job.signature);
      }
      const results = await batch.exec();
      const failed = results?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
    async forget(id) {
      await redis.del(key.m(id), key.events(id), key.queued(id));
    },
    async claim(id, probe, runner) {
      return (await redis.netinfoMeshClaim(key.m(id), probe, runner)) === 1;
    },
    async append(id, probe, json, end) {
      const outcome = await redis.netinfoMeshAppend(
        key.m(id),
        key.events(id),
        key.m(id),
        probe,
        json,
        end?.status ?? '',
        end === undefined ? '' : JSON.stringify(end),
      );
      const outcomes: Record<string, AppendOutcome> = { '1': 'appended', '0': 'ended', '-1': 'gone' };
      return outcomes[String(outcome)] ?? 'gone';
    },
    async sweep(id) {
      if (performance.now() - upSince < RUNNER_TTL * heartbeatMs) return;
      await redis.netinfoMeshSweep(key.m(id), key.events(id), key.queued(id), key.m(id), prefix, nodeTimeoutMs);
    },
    async state(id) {
      return readState(await redis.hgetall(key.m(id)));
    },
    async events(id, after) {
      const entries = await redis.xrange(key.events(id), after === null ? '-' : `(${after}`, '+');
      if (entries.length === 0 && (await redis.exists(key.m(id))) === 0) return null;
      return entries.map(([entryId, fields]): StoredEvent => ({ id: entryId, json: fields[1] ?? '{}' }));
    },
    watch(id, changed) {
      const channel = key.m(id);
      let entry = watchers.get(channel);
      if (entry === undefined) {
        entry = {
          callbacks: new Set(),
          subscribed: subscriber.subscribe(channel).then(
            () => {},
            () => {},
          ),
        };
        watchers.set(channel, entry);
      }
      const watched = entry;
      watched.callbacks.add(changed);
      return {
        ready: watched.subscribed,
        stop: () => {
          watched.callbacks.delete(changed);
          if (watched.callbacks.size > 0) return;
          watchers.delete(channel);
          subscriber.unsubscribe(channel).catch(() => {});
        },
      };
    },
    consume(node, runner, run) {
      void consumeLoop(node, runner, run);
    },
    async close() {
      closed = true;
      blocking.disconnect();
      subscriber.disconnect();
    },
  };
}
