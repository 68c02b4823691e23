import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StorageUnavailableError } from '../storage/errors.ts';
import { ApiError, apiErrors } from './errors.ts';

/** Methods every API path answers; anything else on a known path is a 405. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Turns the first schema-validation issue into the catalogue's 400 for a query parameter. */
export function validationError(issues: readonly ValidationIssue[], hints: Record<string, string> = {}): ApiError {
  const issue = issues[0];
  if (!issue) return apiErrors.badRequest('Invalid request.');
  if (issue.keyword === 'required') return apiErrors.missingParameter(String(issue.params.missingProperty));
  const name = issue.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  if (name === '') return apiErrors.badRequest(`Invalid request: ${issue.message ?? 'not accepted'}.`);
  const hint = hints[name];
  if (hint) return apiErrors.invalidParameter(name, hint);
  if (issue.keyword === 'enum') {
    const allowed = (issue.params.allowedValues as unknown[] | undefined) ?? [];
    return apiErrors.invalidParameter(name, `must be one of ${allowed.join(', ')}`);
  }
  return apiErrors.invalidParameter(name, issue.message ?? 'not accepted');
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-parameter text for 400 messages: what a valid value looks like. */
    parameterHints?: Record<string, string>;
  }
}

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.headers(error.headers);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({ error: error.message, ...error.extra });
}

/** The one place errors become responses. 5xx details go to the log (with the request id), never the body. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.status >= 500) request.log.warn({ code: error.code, message: error.message }, 'upstream failure');
      return send(reply, error);
    }
    if (error instanceof StorageUnavailableError) {
      request.log.error({ err: { message: error.message } }, 'account database unavailable');
      return send(reply, apiErrors.accountsUnavailable());
    }
    if (error.validation) {
      return send(reply, validationError(error.validation, request.routeOptions.config.parameterHints));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Fastify's own client errors (bad JSON, body too large, unsupported media type) have safe messages.
      return send(reply, new ApiError(status, error.code ?? 'bad_request', error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, apiErrors.internal(String(request.id)));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const known = app.hasRoute({ method: 'GET', url: path });
    if (known && !(ALLOWED_METHODS as readonly string[]).includes(request.method)) {
      return send(reply, apiErrors.methodNotAllowed(request.method, path, ALLOWED_METHODS));
    }
    return send(reply, apiErrors.notFound(request.method, path));
  });
}
