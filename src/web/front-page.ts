import type { FastifyInstance } from 'fastify';
import type { AssetUrls } from './dashboard-page.ts';
import { pageHeaders } from './dashboard-routes.ts';
import { escapeHtml as e } from './html.ts';

/**
 * The page a browser gets at `/` (curl gets the caller's IP as text: src/text/): for now the
 * visitor's address and where to go next. Server-rendered, no script; the dashboard's stylesheet
 * and security headers. A later issue builds the real front page here.
 */
export function renderFrontPage(assets: Pick<AssetUrls, 'css'>, ip: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>netinfo: your IP address is ${e(ip)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${e(assets.css)}">
</head>
<body>
<main id="main">
<h1>Your IP address</h1>
<p class="card"><code id="ip">${e(ip)}</code></p>
<ul>
<li><a href="/api/v1/json">What the service knows about it</a> (<code>/api/v1/json</code>)</li>
<li><a href="/api/v1/openapi.json">The API, as an OpenAPI document</a></li>
<li><a href="/dashboard">API keys for higher limits</a></li>
</ul>
<p>From a terminal, <code>curl</code> this page's address: it answers your IP as one line of text; <code>/city</code>, <code>/asn</code>, <code>/json</code> and the other text paths answer the rest.</p>
</main>
</body>
</html>
`;
}

export function registerFrontPage(app: FastifyInstance, assets: Pick<AssetUrls, 'css'>): void {
  app.get('/', { schema: { hide: true }, constraints: { answers: 'html' } }, (request, reply) =>
    pageHeaders(reply).send(renderFrontPage(assets, request.clientIp)),
  );
}
