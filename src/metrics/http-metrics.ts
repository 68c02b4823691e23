import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Counter, Histogram } from 'prom-client';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's metric children, made once when the route is registered. */
    httpMetrics?: RouteMetrics;
  }
}

type CounterChild = ReturnType<Counter<'route' | 'method' | 'status'>['labels']>;
type HistogramChild = ReturnType<Histogram<'route'>['labels']>;

/** One route's children: the histogram's, and the counter's by method and status as they appear. */
class RouteMetrics {
  readonly duration: HistogramChild;
  private readonly counts = new Map<string, Map<number, CounterChild>>();
  private readonly route: string;
  private readonly counter: Counter<'route' | 'method' | 'status'>;
  constructor(route: string, counter: Counter<'route' | 'method' | 'status'>, histogram: Histogram<'route'>) {
    this.route = route;
    this.counter = counter;
    this.duration = histogram.labels(route);
  }
  count(method: string, status: number): CounterChild {
    let byStatus = this.counts.get(method);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.counts.set(method, byStatus);
    }
    let child = byStatus.get(status);
    if (child === undefined) {
      child = this.counter.labels(this.route, method, String(status));
      byStatus.set(status, child);
    }
    return child;
  }
}

/**
 * netinfo_http_requests_total and netinfo_http_request_duration_seconds. The label is the route
 * pattern the router matched (`/api/v1/json/:ip`), never the raw URL, so a flood of random paths
 * adds one series, `route="unmatched"`, not one per path. The children are made per route when it
 * is registered (onRoute), so a request costs two Map lookups, not a label lookup by strings.
 */
export function registerHttpMetrics(
  app: FastifyInstance,
  families: { httpRequests: Counter<'route' | 'method' | 'status'>; httpDuration: Histogram<'route'> },
): void {
  const { httpRequests, httpDuration } = families;
  const unmatched = new RouteMetrics('unmatched', httpRequests, httpDuration);
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, httpMetrics: new RouteMetrics(route.url, httpRequests, httpDuration) };
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const metrics = request.is404 ? unmatched : (request.routeOptions.config.httpMetrics ?? unmatched);
    metrics.count(request.method, reply.statusCode).inc();
    metrics.duration.observe(reply.elapsedTime / 1000);
    done();
  });
}
