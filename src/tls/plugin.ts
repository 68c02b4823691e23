import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import { TlsCheckError } from './check-error.ts';
import type { TlsChecker } from './inspect.ts';
import { sslRouteSchema } from './schema.ts';
import { parseTlsTarget } from './target.ts';

export interface SslPluginOptions {
  checker: TlsChecker;
  cap: InFlightCap;
}

export const sslPlugin: FastifyPluginAsyncTypebox<SslPluginOptions> = async (app, { checker, cap }) => {
  app.get('/api/v1/ssl', { schema: sslRouteSchema }, async (request) => {
    const { query } = request;
    const parsed = parseTlsTarget(query.host);
    if (!parsed.ok) throw apiErrors.invalidParameter('host', parsed.reason);
    const { host } = parsed.target;
    const port = readPort(query.port, parsed.target.port);
    try {
      return await withinInFlightCap(cap, request, () =>
        checker.check({
          ...parsed.target,
          port,
          starttls: query.starttls ?? null,
          protocols: query.protocols === 'true',
        }),
      );
    } catch (error) {
      if (!(error instanceof TlsCheckError)) throw error;
      if (error.kind === 'forbidden' || error.kind === 'no-address') {
        throw apiErrors.invalidParameter('host', error.message);
      }
      throw apiErrors.upstream(`TLS check of ${host} failed: ${error.message}.`);
    }
  });
};

function readPort(text: string | undefined, inHost: number | null): number | null {
  if (text === undefined) return inHost;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw apiErrors.invalidParameter('port', 'must be a whole number from 1 to 65535');
  }
  if (inHost !== null && inHost !== port) {
    throw apiErrors.invalidParameter('port', `is ${port} but 'host' names port ${inHost}; give one of them`);
  }
  return port;
}
