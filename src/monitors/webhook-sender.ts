import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Resolver } from '../dns/resolver.ts';
import { resolveTarget, type TargetPolicy } from '../dns/target-policy.ts';
import type { PortRanges } from '../httpcheck/config.ts';
import { type CheckTarget, parseCheckUrl, redirectTarget } from '../httpcheck/target-url.ts';

const WEBHOOK_USER_AGENT = 'netinfo-webhook/1';
const MAX_REDIRECTS = 5;
/** Bytes of a receiver's answer read (and thrown away): the status is what counts. */
const MAX_ANSWER_BYTES = 65_536;

export interface PostOutcome {
  status: number | null;
  error: string | null;
}

export interface WebhookReach {
  resolver: Resolver;
  policy: TargetPolicy;
  ports: PortRanges;
  timeoutMs: number;
  trustedCertificates?: readonly string[];
}

/** Why a webhook URL cannot be used (its scheme, port, or where its name points), or null. */
export async function webhookUrlProblem(url: string, reach: WebhookReach): Promise<string | null> {
  const parsed = parseCheckUrl(url, reach.ports);
  if (!parsed.ok) return `${url} ${parsed.reason}`;
  const resolution = await resolveTarget(parsed.target.host, { resolver: reach.resolver, policy: reach.policy });
  return resolution.ok ? null : resolution.message;
}

/**
 * POSTs a notification as any outgoing request of the service is made: the name resolved once
 * through the service's resolver and checked by the target policy, the connection made to that
 * address (no second lookup for DNS rebinding to use), and every redirect (the same POST, resent
 * to its Location, up to 5) checked the same way before it is followed.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  reach: WebhookReach,
): Promise<PostOutcome> {
  const first = parseCheckUrl(url, reach.ports);
  if (!first.ok) return { status: null, error: `${url} ${first.reason}` };
  let target = first.target;
  const deadline = AbortSignal.timeout(reach.timeoutMs);
  for (let redirects = 0; ; redirects++) {
    const resolution = await resolveTarget(target.host, { resolver: reach.resolver, policy: reach.policy });
    if (!resolution.ok) {
      const where = redirects === 0 ? '' : `the redirect to ${target.url.href} is refused: `;
      return { status: null, error: `${where}${resolution.message}` };
    }
    let answer: { status: number; location: string | undefined };
    try {
      answer = await post(target, resolution.address, body, headers, reach, deadline);
    } catch (error) {
      const message = deadline.aborted ? `no answer within ${reach.timeoutMs} ms` : (error as Error).message;
      return { status: null, error: `${target.url.host}: ${message}` };
    }
    if (answer.status < 300 || answer.status > 399 || answer.location === undefined) {
      return { status: answer.status, error: null };
    }
    if (redirects === MAX_REDIRECTS) return { status: answer.status, error: `more than ${MAX_REDIRECTS} redirects` };
    const next = redirectTarget(answer.location, target.url, reach.ports);
    if (!next.ok) return { status: answer.status, error: `the redirect from ${target.url.href} ${next.reason}` };
    target = next.target;
  }
}

function post(
  target: CheckTarget,
  address: string,
  body: string,
  headers: Readonly<Record<string, string>>,
  reach: WebhookReach,
  signal: AbortSignal,
): Promise<{ status: number; location: string | undefined }> {
  const client = target.secure ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        host: address,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        method: 'POST',
        agent: false,
        signal,
        headers: {
          ...headers,
          host: target.url.host,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': WEBHOOK_USER_AGENT,
        },
        ...(target.secure
          ? {
              servername: isIP(target.host) === 0 ? target.host : undefined,
              ...(reach.trustedCertificates ? { ca: [...reach.trustedCertificates] } : {}),
            }
          : {}),
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        response.on('error', () => {});
        response.on('close', () => {
          const location = response.headers.location;
          resolve({ status: response.statusCode ?? 0, location });
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
