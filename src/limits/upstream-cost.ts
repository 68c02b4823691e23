import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitWindows } from './limiter.ts';
import type { RateLimitStore } from './store.ts';
import type { TierLimits } from './tiers.ts';

/**
 * What a call that asks many DNS questions costs against the rate limits (issue 28, item 11): /mail
 * asked up to 96 questions for a flat 5 requests, /blacklist 16 for 1. Now one request per
 * QUESTIONS_PER_UNIT questions asked, settled when the call ends.
 */
export const QUESTIONS_PER_UNIT = 10;

/** The rule as the schemas of /mail and /blacklist say it, written once. */
export const UPSTREAM_COST_RULE = `**Cost.** A call counts against the rate limits by the DNS questions it asks: one request per ${QUESTIONS_PER_UNIT} questions, rounded up, at least 1. One is counted as the request arrives (a caller with none left gets the 429 and nothing is asked); the rest when the call ends, whatever its outcome, never refusing it midway: \`X-RateLimit-Remaining\` on the answer already includes them, and a call may take the count past the limit (the next requests then get the 429 until the reset). Every question put to the service's resolver counts, answered from its cache or not, so the cost does not depend on what other callers asked before; an answer reused whole from this route's own cache asks none and costs 1. A request refused for its parameters costs 1.`;

/** Requests a call that asked `questions` costs. */
export function unitsForQuestions(questions: number): number {
  return Math.max(1, Math.ceil(questions / QUESTIONS_PER_UNIT));
}

/** How many questions a call asked, filled in by the checker as it asks them. */
export interface QuestionTally {
  questions: number;
}

export interface UpstreamCharges {
  /**
   * Counts what the call cost beyond the request the rate-limit hook already counted, through the
   * same store (memory or Redis), and updates the reply's X-RateLimit headers. Never refuses: the
   * work is done.
   */
  settle(request: FastifyRequest, reply: FastifyReply, tally: QuestionTally): Promise<void>;
}

// A limit no count reaches: the store's all-or-nothing increment then always adds.
const NEVER_REFUSED = Number.MAX_SAFE_INTEGER;

export function createUpstreamCharges(options: {
  store: RateLimitStore;
  limits: TierLimits;
  now: () => number;
}): UpstreamCharges {
  return {
    async settle(request, reply, tally) {
      const caller = request.caller;
      const extra = unitsForQuestions(tally.questions) - 1;
      if (caller === undefined || extra <= 0) return;
      const windows = rateLimitWindows(options.limits, caller.tier, caller.subject, options.now());
      try {
        const { counts } = await options.store.consume(
          windows.map((window) => ({ ...window, limit: NEVER_REFUSED })),
          extra,
        );
        const [hourly, daily] = windows;
        const hourlyLeft = Math.max(0, hourly.limit - (counts[0] ?? 0));
        const dailyLeft = Math.max(0, daily.limit - (counts[1] ?? 0));
        // As the limiter decides: the window with fewer left binds, the daily one on a tie.
        const binding = hourlyLeft < dailyLeft ? hourly : daily;
        reply.header('x-ratelimit-remaining', Math.min(hourlyLeft, dailyLeft));
        reply.header('x-ratelimit-reset', Math.ceil(binding.expiresAt / 1000));
      } catch (error) {
        // The answer is ready: a store that failed now loses this charge, not the caller's answer.
        request.log.warn({ err: error }, 'could not count the upstream questions of a call');
      }
    },
  };
}
