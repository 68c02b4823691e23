import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string | string[] | number | undefined>;
}

/**
 * A page's server-side call of the public API, made as the visitor: the same route, limits,
 * headers and serialisation as the visitor's own request to the API (an in-process request, from
 * the visitor's address, under the page's request id). Pages never compute what they show.
 */
export async function callApi(app: FastifyInstance, request: FastifyRequest, url: string): Promise<ApiAnswer> {
  const response = await app.inject({
    method: 'GET',
    url,
    remoteAddress: request.clientIp,
    headers: { 'x-request-id': String(request.id), accept: 'application/json' },
  });
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = { error: response.body };
  }
  return { status: response.statusCode, body, headers: response.headers };
}

/** The API's error message, for a page to show in words (a 429's says when the limit resets, once). */
export function apiErrorText(answer: ApiAnswer): string {
  const error = hasKey(answer.body, 'error') ? answer.body.error : undefined;
  return typeof error === 'string' ? error : `The API answered ${answer.status}.`;
}

/** Whether an answer's body is an object with this key (a 200 of the route the page called: its schema's shape). */
export function hasKey<K extends string>(body: unknown, key: K): body is Record<K, unknown> {
  return typeof body === 'object' && body !== null && key in body;
}
