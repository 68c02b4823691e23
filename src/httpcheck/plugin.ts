import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import { type HttpChecker, HttpCheckRefusal } from './checker.ts';
import type { PortRanges } from './config.ts';
import { HttpCheckError } from './exchange.ts';
import { httpCheckRouteSchema } from './schema.ts';
import { parseCheckUrl } from './target-url.ts';

/** `GET https://example.com/: 200 over HTTP/2 in 123.4 ms after 1 redirect; body_contains found` */
const HTTP_AGENT_TOOL = agentTool<{
  url: string;
  method: string;
  status: number;
  http_version: string;
  redirects: unknown[];
  timings: { total: number };
  body_found?: boolean | null;
}>('http_check', (answer) => {
  const redirects =
    answer.redirects.length === 0
      ? ''
      : ` after ${answer.redirects.length} ${answer.redirects.length === 1 ? 'redirect' : 'redirects'}`;
  const found = answer.body_found == null ? '' : `; body_contains ${answer.body_found ? 'found' : 'not found'}`;
  return `${answer.method} ${answer.url}: ${answer.status} over HTTP/${answer.http_version} in ${answer.timings.total} ms${redirects}${found}`;
});

export interface HttpCheckPluginOptions {
  checker: HttpChecker;
  ports: PortRanges;
  cap: InFlightCap;
}

export const httpCheckPlugin: FastifyPluginAsyncTypebox<HttpCheckPluginOptions> = async (
  app,
  { checker, ports, cap },
) => {
  app.get(
    '/api/v1/http',
    { schema: httpCheckRouteSchema, config: { agentTool: HTTP_AGENT_TOOL } },
    async (request, reply) => {
      const parsed = parseCheckUrl(request.query.url, ports);
      if (!parsed.ok) throw apiErrors.invalidParameter('url', parsed.reason);
      const { method = 'GET', body_contains: find } = request.query;
      if (find !== undefined && method === 'HEAD') {
        throw apiErrors.invalidParameter('body_contains', 'needs GET: a HEAD answer has no body');
      }
      const left = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) left.abort();
      };
      reply.raw.once('close', onClose);
      try {
        return await withinInFlightCap(cap, request, () => checker.check(parsed.target, method, left.signal, find));
      } catch (error) {
        if (error instanceof HttpCheckRefusal) throw apiErrors.invalidParameter('url', error.message);
        if (error instanceof HttpCheckError) {
          throw apiErrors.httpCheckFailed(parsed.target.url.href, error.phase, error.message);
        }
        throw error;
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
};
