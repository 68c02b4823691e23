import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
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

/**
 * netinfo_http_requests_total and netinfo_http_request_duration_seconds. The label is the route
 * pattern the router matched (`/api/v1/json/:ip`), never the raw URL, so a flood of random paths
 * adds one series, `route="unmatched"`, not one per path. The series are made per route when it is
 * registered (onRoute), so a request costs two Map lookups and two additions (see series.ts).
 */
export function registerHttpMetrics(
  app: FastifyInstance,
  families: { httpRequests: CounterFamily; httpDuration: HistogramFamily },
): void {
  const { httpRequests, httpDuration } = families;
  const record = (metrics: RouteMetrics, request: FastifyRequest, reply: FastifyReply) => {
    metrics.count(request.method, reply.statusCode).value++;
    metrics.duration.observe(reply.elapsedTime / 1000);
  };
  // Each route gets a hook of its own holding its series: `request.routeOptions` would build an
  // object on every request to say which route matched.
  app.addHook('onRoute', (route) => {
    const metrics = new RouteMetrics(route.url, httpRequests, httpDuration);
    const hook: onResponseHookHandler = (request, reply, done) => {
      record(metrics, request, reply);
      done();
    };
    const existing = route.onResponse;
    route.onResponse = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
  // Requests that match no route: the not-found handler's context has the root hooks only.
  const unmatched = new RouteMetrics('unmatched', httpRequests, httpDuration);
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (request.is404) record(unmatched, request, reply);
    done();
  });
}
