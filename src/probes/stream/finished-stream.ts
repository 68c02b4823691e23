import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { isStreamEventId } from '../../http/sse.ts';

/**
 * Answers `204 No Content` to a stream request whose `Last-Event-ID` one of our streams sent: an
 * EventSource reconnecting after its stream ended (every stream ends, and none can be resumed),
 * which the 204 tells to stop instead of starting the probe again. The first `onRequest` hook of each
 * stream route (deps.ts), ahead of the rate limiter's: the reconnect is never counted, no slot is
 * taken and nothing runs. A Last-Event-ID that is not ours is ignored: the request is an ordinary one.
 */
export function answerFinishedStreams(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
  const lastEventId = request.headers['last-event-id'];
  if (typeof lastEventId === 'string' && isStreamEventId(lastEventId)) {
    reply.code(204).send();
    return;
  }
  done();
}
