import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { Logger } from 'pino';
import { answerClientError, answerFrameworkError, MAX_PATH_PARAMETER_LENGTH } from './error-handler.ts';
import { requestLoggerFactory, ServiceLogController } from './logging.ts';
import { requestIdFor } from './request-context.ts';
import { compilingOncePerSchema } from './serializers.ts';
import { strictValidators } from './validators.ts';

/** Fastify's options for the service. */
export function serverOptions(requestTimeoutMs: number, logger: Logger): FastifyHttpOptions<Server> {
  return {
    // The service's logger is installed after construction, not handed to Fastify: see http/logging.ts for why.
    logger: false,
    logController: new ServiceLogController(),
    childLoggerFactory: requestLoggerFactory(logger),
    genReqId: requestIdFor,
    requestIdHeader: false,
    return503OnClosing: true,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError(logger),
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    forceCloseConnections: 'idle',
    // A request whose headers or body never finish arriving would otherwise hold its socket for
    // ever (Fastify's default of 0 replaces Node's 300 s). Given to Node's server at construction:
    // Fastify sets `requestTimeout` on the server afterwards, which Node's check does not follow
    // (measured: a 1 s limit set that way answered after 60 s). Node checks open requests every
    // `connectionsCheckingInterval` (30 s by default): at a tenth of the limit, at most every second,
    // a slow request is answered 408 within about 1.1x the limit.
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(requestTimeoutMs / 10)),
    },
    schemaController: {
      compilersFactory: { buildSerializer: compilingOncePerSchema(), buildValidator: strictValidators() },
    },
  };
}
