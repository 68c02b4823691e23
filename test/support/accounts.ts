import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AppDeps } from '../../src/app.ts';
import { buildTestApp } from './app.ts';

type App = Awaited<ReturnType<typeof buildTestApp>>;
type Injected = Awaited<ReturnType<App['inject']>>;

/** The real app on a fresh data directory of its own (database and master key), removed afterwards. */
export async function buildAccountsApp(env: Record<string, string> = {}, deps: AppDeps = {}) {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'netinfo-accounts-'));
  const app = await buildTestApp({ DATA_DIR: dataDir, ...env }, deps);
  return {
    app,
    dataDir,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The `name=value` part of a Set-Cookie header. */
export function cookieOf(response: Injected): string {
  const header = response.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  return (first ?? '').split(';')[0] ?? '';
}

/** A browser-like session: remembers the cookie and CSRF token the account API hands out. */
export function sessionClient(app: App, options: { ip?: string } = {}) {
  const state = { cookie: '', csrf: '' };
  const remoteAddress = options.ip ?? '127.0.0.1';
  const remember = (response: Injected) => {
    const cookie = cookieOf(response);
    if (cookie) state.cookie = cookie.endsWith('=') ? '' : cookie;
    if (response.statusCode < 300 && response.body.startsWith('{')) {
      const token = response.json().csrf_token;
      if (typeof token === 'string') state.csrf = token;
    }
    return response;
  };
  const headers = (extra: Record<string, string> = {}) => ({
    ...(state.cookie ? { cookie: state.cookie } : {}),
    ...(state.csrf ? { 'x-csrf-token': state.csrf } : {}),
    ...extra,
  });
  return {
    state,
    signup: async (email: string, password: string) =>
      remember(
        await app.inject({
          method: 'POST',
          url: '/api/v1/account/signup',
          remoteAddress,
          headers: headers(),
          payload: { email, password },
        }),
      ),
    login: async (email: string, password: string) =>
      remember(
        await app.inject({
          method: 'POST',
          url: '/api/v1/account/login',
          remoteAddress,
          headers: headers(),
          payload: { email, password },
        }),
      ),
    logout: async () =>
      remember(await app.inject({ method: 'POST', url: '/api/v1/account/logout', remoteAddress, headers: headers() })),
    account: async () => remember(await app.inject({ url: '/api/v1/account', remoteAddress, headers: headers() })),
    listKeys: () => app.inject({ url: '/api/v1/account/keys', remoteAddress, headers: headers() }),
    createKey: (name: string, extra: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/account/keys',
        remoteAddress,
        headers: headers(extra),
        payload: { name },
      }),
    revokeKey: (id: string, extra: Record<string, string> = {}) =>
      app.inject({ method: 'DELETE', url: `/api/v1/account/keys/${id}`, remoteAddress, headers: headers(extra) }),
  };
}

export const PASSWORD = 'correct horse battery staple';
