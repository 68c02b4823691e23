import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import { TlsCheckError } from './check-error.ts';
import type { TlsChecker } from './inspect.ts';
import { sslRouteSchema } from './schema.ts';
import { parseTlsTarget } from './target.ts';

/** `example.com:443 (93.184.215.14): valid, TLSv1.3, issuer DigiCert Inc, expires 2026-01-15 (48 days)` */
const TLS_AGENT_TOOL = agentTool<{
  host: string;
  port: number;
  address: string;
  valid: boolean;
  validation_error?: string | null;
  protocol?: string | null;
  issuer_org?: string | null;
  valid_to?: string | null;
  days_remaining?: number | null;
}>('tls_check', (answer) => {
  const state = answer.valid ? 'valid' : `invalid (${answer.validation_error ?? 'see validation_errors'})`;
  const facts = [
    state,
    answer.protocol,
    answer.issuer_org ? `issuer ${answer.issuer_org}` : undefined,
    answer.valid_to
      ? `expires ${answer.valid_to}${answer.days_remaining == null ? '' : ` (${answer.days_remaining} days)`}`
      : undefined,
  ].filter(Boolean);
  return `${answer.host}:${answer.port} (${answer.address}): ${facts.join(', ')}`;
});

export interface SslPluginOptions {
  checker: TlsChecker;
  cap: InFlightCap;
}

export const sslPlugin: FastifyPluginAsyncTypebox<SslPluginOptions> = async (app, { checker, cap }) => {
  app.get('/api/v1/ssl', { schema: sslRouteSchema, config: { agentTool: TLS_AGENT_TOOL } }, async (request) => {
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
