import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiErrors } from '../http/errors.ts';
import { unknownQueryParameters } from '../http/query-params.ts';
import type { Accounts } from './accounts.ts';
import {
  type RequestFacts,
  readCookies,
  requestHost,
  isSecureRequest as secureRequest,
  sessionCookie,
  sessionCookieName,
} from './session-cookie.ts';
import type { ActiveSession } from './sessions.ts';

export function requestFacts(request: FastifyRequest): RequestFacts {
  return { headers: request.headers, socket: request.raw.socket as RequestFacts['socket'] };
}

export function isSecureRequest(accounts: Accounts, request: FastifyRequest): boolean {
  return secureRequest(requestFacts(request), accounts.trustProxy);
}

/** Session cookies looked up per request at most: each one that has a session's shape costs a read. */
const MAX_PRESENTED_SESSIONS = 4;

/** The session cookie's values for this kind of request (HTTPS reads only the `__Host-` name). */
export function presentedSessionIds(accounts: Accounts, request: FastifyRequest): string[] {
  const name = sessionCookieName(isSecureRequest(accounts, request));
  return readCookies(request.headers.cookie, name).slice(0, MAX_PRESENTED_SESSIONS);
}

/** The session of the first presented cookie that has one (a stale duplicate does not hide it). */
export async function currentSession(accounts: Accounts, request: FastifyRequest): Promise<ActiveSession | undefined> {
  for (const id of presentedSessionIds(accounts, request)) {
    const session = await accounts.sessions.resume(id);
    if (session) return session;
  }
  return undefined;
}

export async function requireSession(accounts: Accounts, request: FastifyRequest): Promise<ActiveSession> {
  const session = await currentSession(accounts, request);
  if (!session) throw apiErrors.notSignedIn();
  return session;
}

export function requireCsrfToken(accounts: Accounts, request: FastifyRequest, session: ActiveSession): void {
  const header = request.headers['x-csrf-token'];
  const presented = Array.isArray(header) ? undefined : header;
  if (!accounts.sessions.csrfTokenMatches(session, presented)) {
    throw apiErrors.csrfRejected(
      presented === undefined ? 'the X-CSRF-Token header is missing' : 'the X-CSRF-Token is wrong',
    );
  }
}

/**
 * Why a state-changing request looks cross-site, or null. Browsers that send Fetch Metadata (every
 * current one, over HTTPS and on localhost) say it in Sec-Fetch-Site; others are judged by Origin
 * against the host they addressed. A request with neither is not from a browser page (curl, a
 * script), so there is no victim's cookie to abuse; the CSRF token still guards the session's actions.
 */
export function crossSiteReason(accounts: Accounts, request: FastifyRequest): string | null {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? null : `Sec-Fetch-Site is ${site}`;
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  const host = requestHost(requestFacts(request), accounts.trustProxy);
  try {
    const originUrl = new URL(origin);
    if (host !== undefined && originUrl.host === new URL(`${originUrl.protocol}//${host}`).host) return null;
  } catch {
    return 'the Origin header is malformed';
  }
  return `Origin ${origin} is not this site`;
}

/**
 * Renewal at login and sign-up: whatever session this browser presented ends, and a fresh one is
 * started and handed over in the cookie. Returns its CSRF token.
 */
export async function startSession(
  accounts: Accounts,
  request: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
): Promise<string> {
  for (const previous of presentedSessionIds(accounts, request)) await accounts.sessions.end(previous);
  const session = await accounts.sessions.start(accountId);
  const secure = isSecureRequest(accounts, request);
  reply.header('set-cookie', sessionCookie(session.id, { secure, maxAgeSeconds: session.maxAgeSeconds }));
  return session.csrfToken;
}

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** A body field as the dashboard's reader calls it, and what it must be: "The password must be...". */
export interface FieldRule {
  readonly what: string;
  readonly rule: string;
}

/**
 * Routes here validate with `attachValidation`, so body errors speak of a field of the form (the
 * shared handler's wording is about query parameters).
 */
export function throwIfInvalid(request: FastifyRequest, rules: Readonly<Record<string, FieldRule>>): void {
  const failure = request.validationError;
  if (!failure) return;
  // A path id of the wrong shape cannot name a key of this account.
  if (failure.validationContext === 'params') throw apiErrors.keyNotFound();
  if (failure.validationContext === 'querystring') {
    throw unknownQueryParameters(request) ?? apiErrors.badRequest('The query string is not accepted.');
  }
  const issue = (failure.validation as ValidationIssue[] | undefined)?.[0];
  if (!issue) throw apiErrors.badRequest('The body must be a JSON object.');
  if (issue.keyword === 'required') throw apiErrors.missingField(String(issue.params.missingProperty));
  const name = issue.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  if (name === '') throw apiErrors.badRequest('The body must be a JSON object.');
  const rule = rules[name];
  throw rule
    ? apiErrors.invalidField(rule.what, rule.rule)
    : apiErrors.invalidField(`field '${name}'`, 'is not accepted');
}
