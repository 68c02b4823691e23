import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { currentSession, isSecureRequest, requestFacts } from '../accounts/account-http.ts';
import type { Accounts } from '../accounts/accounts.ts';
import { requestHost } from '../accounts/session-cookie.ts';
import { apiErrors } from '../http/errors.ts';
import { ifNoneMatchHits } from '../http/etag.ts';
import type { RouteCatalogue } from '../http/route-catalogue.ts';
import { type AssetUrls, renderSignedIn, renderSignedOut } from './dashboard-page.ts';
import { monitorFormView, renderMonitorsSection } from './monitors-page.ts';
import type { AssetStore } from './site/assets.ts';

export const DASHBOARD_PATH = '/dashboard';

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly version: string;
}

/**
 * Nothing is fetched from elsewhere, scripts and styles come only from this origin (no inline code),
 * the page cannot be framed (clickjacking), and forms can post only here.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function loadAssets(): Map<string, Asset> {
  const directory = path.join(import.meta.dirname, 'assets');
  const assets = new Map<string, Asset>();
  for (const [name, type] of [
    ['dashboard.css', 'text/css; charset=utf-8'],
    ['dashboard.js', 'text/javascript; charset=utf-8'],
  ] as const) {
    const body = readFileSync(path.join(directory, name));
    assets.set(name, { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 16) });
  }
  return assets;
}

function pageHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

export interface DashboardPluginOptions {
  accounts: Accounts;
  site: AssetStore;
  routes: RouteCatalogue;
}

const AssetRequest = {
  hide: true,
  params: Type.Object({ name: Type.String() }),
  // Any value is taken: one that is not the current version is answered `no-cache`.
  querystring: Type.Object({ v: Type.Optional(Type.Unknown()) }),
};

/** `/dashboard`: server-rendered pages over the account services, plus their two static files. */
export const dashboardPlugin: FastifyPluginAsyncTypebox<DashboardPluginOptions> = async (
  app,
  { accounts, site, routes },
) => {
  const assets = loadAssets();
  const assetUrl = (name: string) => `${DASHBOARD_PATH}/assets/${name}?v=${assets.get(name)?.version ?? ''}`;
  const urls: AssetUrls = { css: assetUrl('dashboard.css'), js: assetUrl('dashboard.js') };
  // At the first signed-in view: the API's routes are plugins that register at ready.
  let monitors: string | undefined;

  // Pages a browser opens: a link may add anything to the query (utm_source...), so it is not checked.
  app.get(DASHBOARD_PATH, { schema: { hide: true }, config: { openQueryString: true } }, async (request, reply) => {
    const session = await currentSession(accounts, request);
    pageHeaders(reply);
    if (!session) return reply.send(renderSignedOut(site, urls));
    const [overview, keys] = await Promise.all([
      accounts.accountService.overview(session.account),
      accounts.keys.list(session.account.id),
    ]);
    const scheme = isSecureRequest(accounts, request) ? 'https' : 'http';
    const origin = `${scheme}://${requestHost(requestFacts(request), accounts.trustProxy) ?? 'localhost'}`;
    if (monitors === undefined) {
      const form = monitorFormView(routes);
      monitors = form ? renderMonitorsSection(form, site.url('world.svg')) : '';
    }
    return reply.send(renderSignedIn(site, urls, { overview, keys, csrfToken: session.csrfToken, origin, monitors }));
  });

  app.get(
    `${DASHBOARD_PATH}/assets/:name`,
    { schema: AssetRequest, config: { openQueryString: true } },
    async (request, reply) => {
      const asset = assets.get(request.params.name);
      if (!asset) throw apiErrors.notFound('GET', request.url.split('?')[0] ?? request.url);
      // Weak: the same tag covers the file and its gzip and brotli encodings (http/compression.ts).
      const etag = `W/"${asset.version}"`;
      const versioned = request.query.v === asset.version;
      reply
        .type(asset.type)
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', versioned ? 'public, max-age=31536000, immutable' : 'no-cache');
      if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.send(asset.body);
    },
  );
};
