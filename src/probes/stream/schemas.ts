import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../../http/schemas.ts';

export const streamRules = (tool: string, timeLimit: string) => `**Stream.** The answer is a Server-Sent Events stream
(\`Content-Type: text/event-stream; charset=utf-8\`, \`Cache-Control: no-cache\`, \`X-Accel-Buffering: no\`, plus the
CORS, rate-limit and request-id headers of every response). Each message is a line \`id: <event id>\`, a line
\`data: <JSON object>\` and a blank line, with no \`event:\` field; the object's \`type\` names the event. Each event is
written the moment ${tool} prints the line it comes from. The stream ends after \`done\` or after one \`error\`; an
EventSource client should call \`close()\` on either (and on its own \`error\`).

**Reconnects.** An event id is \`netinfo.<stream>.<seq>\` (the stream a 16-hex-digit name, seq its events counted from 1).
A stream is never resumed: ${tool} is killed when the client leaves. So a request that sends \`Last-Event-ID\` with an id of
this form, which is what EventSource does when it reconnects after a stream ended, is answered \`204 No Content\` (which
tells EventSource to stop) before anything else: it is not counted in the rate limits (no \`X-RateLimit-*\` headers), takes
no stream slot and runs nothing, whichever instance sent the id. A \`Last-Event-ID\` of any other form is ignored: the
request is an ordinary new one.

**Before the stream.** A missing or invalid parameter is a 400 JSON error, and so is a host that resolves to an
address the service does not probe (private, loopback, link-local, multicast, reserved, metadata; an operator may allow
them with ALLOW_PRIVATE_TARGETS), and a name that does not exist or has no address (of the \`family\` asked). A
resolver that fails (timeout, SERVFAIL, unreachable) is a 502 JSON error. Names are resolved once, by the service's resolver (DNS_SERVERS), preferring IPv4
unless \`family\` says otherwise; ${tool} is given the address, never the name, as an argument (no shell) in the C locale.
Too many open streams is a 429 (see its description for the caps and how a busy server shares them); its \`reset\` is
the time by which a stream is over at the latest. A HEAD request is answered as GET would be (the headers, or the JSON
error) without running anything.

**In the stream.** ${tool} missing or failing, the time limit (${timeLimit})
and a server shutdown are an \`error\` event, after which the stream ends. ${tool} is killed (SIGKILL) at the time limit,
on shutdown and the moment the client disconnects; it never outlives its stream.`;

const ProbeHost = Type.String({
  description:
    'Host name (IDN allowed, at most 253 characters) or IP address (IPv6 also in brackets). Anything else, such as `-f`, `;` or a line break, is a 400.',
  examples: ['example.com', '192.0.2.1', '2001:db8::1'],
});

const ProbeFamily = Type.Optional(
  Type.Union([Type.Literal('4'), Type.Literal('6')], {
    description:
      'Address family to probe a name over: 4 or 6. Default: IPv4 when the name has an A record, else IPv6. An IP address is probed over its own family.',
  }),
);

/** Read by the rate limiter (limits/rate-limit-hook.ts), through the route's `apiKeyInQuery`. */
const ProbeApiKey = Type.Optional(
  Type.String({
    maxLength: 200,
    description:
      "An API key, for clients that cannot send headers (a browser's `EventSource`); elsewhere send `Authorization: Bearer <key>`, and never both. Accepted on the stream endpoints only. The risk: a URL is kept where a header is not (browser history, a proxy's or a server's access log, a `Referer`), so use a key you can revoke on its own; this service never logs it (every key-shaped string in a log line is redacted).",
  }),
);

export const probeQueryProperties = { host: ProbeHost, family: ProbeFamily, api_key: ProbeApiKey };

export const streamRouteConfig = { apiKeyInQuery: true, stream: true } as const;

export function streamResponses(events: TSchema, description: string) {
  return {
    200: okResponse({ content: { 'text/event-stream': { schema: events } } }, description),
    204: Type.Null({
      description:
        'A reconnect: `Last-Event-ID` names an event of a stream of this service, which has finished. Nothing ran and nothing was counted; an EventSource stops here.',
    }),
    ...commonErrorResponses,
    ...upstreamErrorResponse,
    429: {
      ...commonErrorResponses[429],
      description:
        'Rate limit exceeded, or too many open streams: `limit` is the cap that applied, `reset` when a slot is free at the latest. Streams are capped at STREAM_MAX_PER_CLIENT per caller (counted like the rate limits) and STREAM_MAX_CONCURRENT in all, ping (ICMP and TCP), traceroute and MTR together; each stream also counts as one request in the rate limits. A busy server shares what is free: a caller that holds `n` streams may open another only while more than `n / STREAM_MAX_PER_CLIENT` of all slots are free (with 100 and 3: a second while at least 34 are free, a third while at least 67 are), so a caller with none gets a slot as long as any is free. That refusal names the share the caller may hold now as `limit`.',
    },
  };
}

export const probeParameterHints = { family: 'must be 4 or 6' };
