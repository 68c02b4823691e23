import { type TSchema, Type } from 'typebox';
import { NO_ADDRESS } from '../dns/target-policy.ts';
import type { ProbeEnd } from '../mesh/store.ts';

const flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const percent = (description: string) =>
  Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: `Percent: ${description}` }));
const milliseconds = (description: string) =>
  Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 600_000, description: `Milliseconds: ${description}` }));
interface ConditionSet {
  readonly properties: Readonly<Record<string, TSchema>>;
  /** In force when a monitor is given no conditions. */
  readonly defaults: Readonly<Record<string, unknown>>;
  readonly description: string;
}
const conditions = (
  properties: Record<string, TSchema>,
  defaults: Record<string, unknown>,
  always: string,
): ConditionSet => ({
  properties,
  defaults,
  description: `${always}${always ? ' ' : ''}Without \`conditions\`: \`${JSON.stringify(defaults)}\`.`,
});

/**
 * What a monitor of each type can be told to watch for. A monitor is down when any condition it
 * has is true, or when the check fails at its target (the route's 502: no connection, no answer; or
 * a name that no longer resolves);
 * a check netinfo could not run (a node gone, a cap, a refusal) is an `error` run, which changes nothing.
 */
export const MONITOR_CONDITIONS = {
  http: conditions(
    {
      status_not: Type.Optional(
        Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), {
          minItems: 1,
          maxItems: 50,
          uniqueItems: true,
          description: 'Down when the final status (after redirects) is not one of these.',
        }),
      ),
      total_ms_over: milliseconds('down when the whole check (timings.total) took longer.'),
      body_missing: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 256,
          description: "Down when the body does not hold this text (the check's `body_contains`).",
        }),
      ),
    },
    {},
    'Without `status_not`, a status of 400 or more is down.',
  ),
  ssl: conditions(
    {
      expires_within_days: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 3650, description: 'Down when days_remaining is this or fewer.' }),
      ),
      invalid: flag('Down when the certificate is not valid (its validation_error says why).'),
      problems_any: flag('Down when /ssl names any problem (weak key, incomplete chain, expiring soon...).'),
    },
    { invalid: true, expires_within_days: 14 },
    'A failed handshake is down.',
  ),
  dns: conditions(
    {
      answer_changed: flag(
        'Down when the answer (the sorted record values) differs from the first one seen since the monitor was created or its check changed.',
      ),
      missing: flag('Down when there is no record of the type asked.'),
      rcode_not_noerror: flag('Down when the status is not NOERROR (NXDOMAIN).'),
    },
    { rcode_not_noerror: true },
    'A resolver failure (SERVFAIL, no answer) is down.',
  ),
  blacklist: conditions({ listed_any: flag('Down when any list lists the address.') }, { listed_any: true }, ''),
  mail: conditions(
    {
      new_problem: flag(
        'Down when a problem appears that the first check since the monitor was created or its check changed did not have.',
      ),
    },
    { new_problem: true },
    'A domain whose MX and TXT lookups both fail is down.',
  ),
  ping: conditions(
    {
      loss_over: percent('down when packet_loss is above this.'),
      avg_ms_over: milliseconds('down when the average round trip is longer.'),
    },
    {},
    'No reply at all is down.',
  ),
  mtr: conditions(
    {
      loss_over_at_any_hop: percent('down when any hop lost more than this (routers that rate-limit ICMP count too).'),
    },
    {},
    'A target not reached is down.',
  ),
};

export type MonitorType = keyof typeof MONITOR_CONDITIONS;
export type MonitorState = 'up' | 'down';
/** `error`: netinfo could not make the check; it says nothing of the target. */
export type RunState = MonitorState | 'error';
export const MONITOR_TYPE_NAMES = Object.keys(MONITOR_CONDITIONS) as MonitorType[];

/** A condition that is a query option of the check: the route does the work where the body streams past. */
export function conditionOptions(type: MonitorType, given: Readonly<Record<string, unknown>>): Record<string, string> {
  if (type === 'http' && typeof given.body_missing === 'string') return { body_contains: given.body_missing };
  return {};
}

export interface Verdict {
  state: RunState;
  cause: string | null;
  summary: Record<string, unknown>;
  /** The type's own latency figure; null when it has none. */
  responseMs: number | null;
  /** A baseline to keep, when there was none and this answer sets it. */
  baseline?: unknown;
}

type Answer = Record<string, unknown>;
type Judge = (
  answer: Answer,
  conditions: Answer,
  baseline: unknown,
) => Omit<Verdict, 'state' | 'cause'> & {
  causes: string[];
};

const list = (values: readonly unknown[]) => values.join(', ') || 'nothing';

const JUDGES: Record<MonitorType, Judge> = {
  http(answer, conditions) {
    const status = Number(answer.status);
    const total = Number((answer.timings as Answer).total);
    const causes: string[] = [];
    const accepted = conditions.status_not as number[] | undefined;
    if (accepted ? !accepted.includes(status) : status >= 400) {
      causes.push(`status ${status}${accepted ? ` is not ${list(accepted)}` : ''}`);
    }
    const over = conditions.total_ms_over as number | undefined;
    if (over !== undefined && total > over) causes.push(`took ${total} ms, over ${over} ms`);
    if (conditions.body_missing !== undefined && answer.body_found === false) {
      causes.push(`the body does not contain ${JSON.stringify(conditions.body_missing)}`);
    }
    const summary = { url: answer.url, status, total_ms: total, body_bytes: answer.body_bytes };
    return {
      causes,
      summary: answer.body_found === undefined ? summary : { ...summary, body_found: answer.body_found },
      responseMs: total,
    };
  },
  ssl(answer, conditions) {
    const days = Number(answer.days_remaining);
    const problems = answer.problems as string[];
    const causes: string[] = [];
    const within = conditions.expires_within_days as number | undefined;
    if (within !== undefined && days <= within) {
      const when = days < 0 ? `expired ${-days} days ago` : `expires in ${days} days`;
      causes.push(`the certificate ${when} (${answer.valid_to}), within ${within}`);
    }
    if (conditions.invalid === true && answer.valid !== true) causes.push(`invalid: ${answer.validation_error}`);
    if (conditions.problems_any === true && problems.length > 0) causes.push(problems.join('; '));
    const summary = {
      valid: answer.valid,
      validation_error: answer.validation_error,
      days_remaining: days,
      valid_to: answer.valid_to,
      problems,
    };
    return { causes, summary, responseMs: null };
  },
  dns(answer, conditions, baseline) {
    const asked = String(answer.record_type);
    const records = answer.records as { record_type: string; value: string }[];
    const values = records
      .filter((record) => record.record_type === asked)
      .map((record) => record.value)
      .sort();
    const causes: string[] = [];
    if (conditions.rcode_not_noerror === true && answer.status !== 'NOERROR') causes.push(`status ${answer.status}`);
    if (conditions.missing === true && values.length === 0) causes.push(`no ${asked} record`);
    const known = Array.isArray(baseline) ? (baseline as string[]) : undefined;
    if (conditions.answer_changed === true && known && list(known) !== list(values)) {
      causes.push(`the answer changed from ${list(known)} to ${list(values)}`);
    }
    return {
      causes,
      summary: { status: answer.status, record_type: asked, values },
      responseMs: null,
      ...(known === undefined && conditions.answer_changed === true ? { baseline: values } : {}),
    };
  },
  blacklist(answer, conditions) {
    const results = answer.results as { name: string; listed: boolean }[];
    const listedOn = results.filter((result) => result.listed).map((result) => result.name);
    const causes = conditions.listed_any === true && listedOn.length > 0 ? [`listed on ${list(listedOn)}`] : [];
    return {
      causes,
      summary: { listed: listedOn.length, listed_on: listedOn, errors: answer.errors },
      responseMs: null,
    };
  },
  mail(answer, conditions, baseline) {
    const problems = mailProblems(answer);
    const known = Array.isArray(baseline) ? (baseline as string[]) : undefined;
    const fresh = known ? problems.filter((problem) => !known.includes(problem)) : [];
    const causes = conditions.new_problem === true && fresh.length > 0 ? [`new: ${fresh.join('; ')}`] : [];
    return {
      causes,
      summary: { exists: answer.exists, problems },
      responseMs: null,
      ...(known === undefined && conditions.new_problem === true ? { baseline: problems } : {}),
    };
  },
  ping(done, conditions) {
    const loss = Number(done.packet_loss);
    const average = typeof done.avg_ms === 'number' ? done.avg_ms : null;
    const causes: string[] = [];
    if (done.alive !== true) causes.push(`no reply (${loss}% lost)`);
    const lossOver = conditions.loss_over as number | undefined;
    if (done.alive === true && lossOver !== undefined && loss > lossOver)
      causes.push(`${loss}% lost, over ${lossOver}%`);
    const slow = conditions.avg_ms_over as number | undefined;
    if (slow !== undefined && average !== null && average > slow) causes.push(`average ${average} ms, over ${slow} ms`);
    return {
      causes,
      summary: { alive: done.alive, packet_loss: loss, min_ms: done.min_ms, avg_ms: average, max_ms: done.max_ms },
      // Without a reply the route's avg_ms is 0: no round trip, not a zero-millisecond one.
      responseMs: done.alive === true ? average : null,
    };
  },
  mtr(done, conditions) {
    const hops = done.hops as { hop: number; ip: string | null; loss: number; avg_ms: number | null }[];
    const worst = hops.reduce<(typeof hops)[number] | null>(
      (top, hop) => (top && top.loss >= hop.loss ? top : hop),
      null,
    );
    const causes: string[] = [];
    if (done.reached !== true) causes.push('the target was not reached');
    const over = conditions.loss_over_at_any_hop as number | undefined;
    if (over !== undefined && worst && worst.loss > over) {
      causes.push(`hop ${worst.hop} (${worst.ip ?? 'no reply'}) lost ${worst.loss}%, over ${over}%`);
    }
    const last = hops.at(-1);
    return {
      causes,
      summary: { reached: done.reached, hops: hops.length, worst_hop: worst },
      responseMs: done.reached === true && last ? last.avg_ms : null,
    };
  },
};

/** Every problem of a mail report, named by its section (`dmarc: p=none`), in the report's order. */
function mailProblems(report: Answer): string[] {
  const problems = (report.problems as string[]).map((problem) => `domain: ${problem}`);
  for (const section of ['mx', 'spf', 'dmarc', 'dkim', 'mta_sts', 'tls_rpt']) {
    const part = report[section] as { problems?: string[] } | null;
    for (const problem of part?.problems ?? []) problems.push(`${section}: ${problem}`);
  }
  return problems;
}

/**
 * One probe's end judged by the monitor's conditions: the route's answer (or the stream's `done`),
 * or its failure (a 502 from the route is the target failing: down; anything else is netinfo's: error).
 */
export function judge(
  type: MonitorType,
  conditions: Readonly<Record<string, unknown>>,
  end: ProbeEnd,
  baseline: unknown,
): Verdict {
  if (end.status === 'failed') {
    // A name that stopped resolving is refused by the route (400) as it would refuse a typo; for a
    // monitor whose name resolved before, it is the target failing.
    const gone = end.http_status === 400 && end.error.includes(NO_ADDRESS);
    const state = end.http_status === 502 || gone ? 'down' : 'error';
    return { state, cause: end.error, summary: { error: end.error }, responseMs: null };
  }
  const { causes, ...rest } = JUDGES[type](end.result as Answer, conditions, baseline);
  return { state: causes.length > 0 ? 'down' : 'up', cause: causes.length > 0 ? causes.join('; ') : null, ...rest };
}
