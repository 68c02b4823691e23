import type { FastifyInstance, FastifyRequest, onResponseHookHandler, onSendHookHandler } from 'fastify';
import { hookList } from '../http/route-config.ts';
import type { CounterFamily, CounterSeries, HistogramFamily, HistogramSeries } from './series.ts';

/** One route's children: the histogram's, and the counter's by method and status as they appear. */
class RouteMetrics {
  readonly duration: HistogramSeries;
  private readonly counts = new Map<string, Map<number, CounterSeries>>();
  private readonly route: string;
  private readonly counter: CounterFamily;
  constructor(route: string, counter: CounterFamily, histogram: HistogramFamily) {
    this.route = route;
    this.counter = counter;
    this.duration = histogram.labels({ route });
  }
  count(method: string, status: number): CounterSeries {
    let byStatus = this.counts.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.counts.set(method, byStatus);
    }
    let child = byStatus.get(status);
    if (child === undefined) {
      child = this.counter.labels({ route: this.route, method, status: String(status) });
      byStatus.set(status, child);
    }
    return child;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** When the request reached Fastify (performance.now()), or -1 once counted: see below. */
    metricsStartedAt: number;
  }
}

/**
 * The label is the route pattern matched (`/api/v1/json/:ip`), never the raw URL, so a flood of
 * random paths adds one series, `route="unmatched"`. Series are made per route at onRoute, so a
 * request costs two Map lookups and two additions.
 *
 * A request is counted when its answer is handed to Node (an onSend step), not at `onResponse`:
 * with no onResponse hook on a route (the access log adds one only at LOG_LEVEL=info), Fastify
 * attaches no `finish` listener at all, and one such hook makes it attach and remove two per
 * request: measured, +5% instructions per /api/v1/json request, where the issue allows 3%. The
 * streams take the response over, so no onSend step sees their end: they are counted at
 * onResponse, unless an answer before it (a 400, a 429) was counted already.
 */
export function registerHttpMetrics(
  app: FastifyInstance,
  families: { httpRequests: CounterFamily; httpDuration: HistogramFamily },
): void {
  const { httpRequests, httpDuration } = families;
  app.decorateRequest('metricsStartedAt', 0);
  const record = (metrics: RouteMetrics, request: FastifyRequest, status: number) => {
    const started = request.metricsStartedAt;
    if (started < 0) return;
    request.metricsStartedAt = -1;
    metrics.count(request.method, status).value++;
    metrics.duration.observe((performance.now() - started) / 1000);
  };
  app.addHook('onRequest', (request, _reply, done) => {
    request.metricsStartedAt = performance.now();
    done();
  });
  app.addHook('onRoute', (route) => {
    const metrics = new RouteMetrics(route.url, httpRequests, httpDuration);
    const counted: onSendHookHandler = (request, reply, payload, done) => {
      record(metrics, request, reply.statusCode);
      done(null, payload);
    };
    route.onSend = [...hookList(route.onSend), counted];
    if (route.config?.stream === true) {
      const ended: onResponseHookHandler = (request, reply, done) => {
        record(metrics, request, reply.statusCode);
        done();
      };
      route.onResponse = [...hookList(route.onResponse), ended];
    }
  });
  // Requests that match no route: the not-found handler's context has the root hooks only.
  const unmatched = new RouteMetrics('unmatched', httpRequests, httpDuration);
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.is404) record(unmatched, request, reply.statusCode);
    done(null, payload);
  });
}
