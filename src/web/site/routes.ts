import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestFacts } from '../../accounts/account-http.ts';
import { isSecureRequest, requestHost } from '../../accounts/session-cookie.ts';
import { decodedPath, setHtmlErrorPage } from '../../http/error-handler.ts';
import type { RouteCatalogue } from '../../http/route-catalogue.ts';
import type { TrustProxy } from '../../http/trust-proxy.ts';
import { type ApiAnswer, apiErrorText, callApi, hasKey } from './api-call.ts';
import { type AssetStore, registerAssetRoute, requestValues } from './assets.ts';
import { renderHome } from './home-page.ts';
import { escapeHtml as e } from './html.ts';
import type { IpAnswer } from './ip-view.ts';
import { contentSecurityPolicy, type PageOptions, renderPage, sendPage } from './layout.ts';
import { type AsnPageAnswer, lookupKind, renderAsnLookup, renderIpLookup } from './lookup-page.ts';
import {
  FROM_HINT,
  MESH_TOOL_KEYS,
  NODES_TOOL_ENTRY,
  nodesOf,
  renderFromChoice,
  renderNodesPage,
} from './mesh-pages.ts';
import { monitorTypes } from './monitor-types.ts';
import { renderNotFound, renderRefused } from './not-found-page.ts';
import { RESOLVER_PAGE_PATH, RESOLVER_TOOL_ENTRY, renderResolverPage } from './resolver-page.ts';
import { type VrpSetAge, vrpSetAgeNote } from './rpki-view.ts';
import { TOOLS } from './tool-definitions.ts';
import { type ToolPage, toolPage } from './tool-fields.ts';
import { renderToolList, renderToolPage, toolTitle } from './tool-page.ts';

/**
 * A page's route: not in the API document, and open to any query (a link may add `utm_source` and
 * the like, which the API's closed query schemas would refuse; a page reads only what it knows).
 */
const pageRoute = () => ({ schema: { hide: true }, config: { openQueryString: true } });

export interface SiteConfig {
  readonly trustProxy: TrustProxy;
  readonly publicIpv4Url: string | null;
  readonly publicIpv6Url: string | null;
  /** RESOLVER_TEST_ZONE: its names are fetched by /tools/resolver. */
  readonly resolverTestZone: string | null;
}

export interface SiteOptions {
  readonly assets: AssetStore;
  readonly routes: RouteCatalogue;
  /** The loaded VRP set's age, which no API answer carries (undefined: no set loaded). */
  readonly vrpSetAge: () => Promise<VrpSetAge | undefined>;
}

/**
 * The site: the home page (the visitor's address and facts), lookups, one page per tool, the API
 * reference, and the files they load. Every fact a page shows comes from the public API: rendered
 * on the server from an in-process call of it (callApi), or fetched by the page's script.
 */
export function registerSite(app: FastifyInstance, config: SiteConfig, options: SiteOptions): void {
  const { assets } = options;
  const familyOrigins = [config.publicIpv4Url, config.publicIpv6Url]
    .filter((url): url is string => url !== null)
    .map(origin);
  const policy = contentSecurityPolicy(familyOrigins);
  registerAssetRoute(app, assets);

  const originOf = (request: FastifyRequest) => {
    const facts = requestFacts(request);
    const scheme = isSecureRequest(facts, config.trustProxy) ? 'https' : 'http';
    return `${scheme}://${requestHost(facts, config.trustProxy) ?? 'localhost'}`;
  };
  const page = (reply: FastifyReply, pageOptions: PageOptions, status = 200) =>
    sendPage(reply, renderPage(assets, pageOptions), policy, status);
  const rpkiAge = async () => vrpSetAgeNote(await options.vrpSetAge());
  const attributionOf = (headers: Record<string, unknown>) => {
    const value = headers['x-data-attribution'];
    return typeof value === 'string' ? value : '';
  };
  // A browser on a path that is no page gets one of these instead of the API's JSON error.
  setHtmlErrorPage(app, (request, reply, error) => {
    const path = decodedPath(request.url);
    const notFound = error.status === 404;
    return page(
      reply,
      {
        title: `${notFound ? 'Page not found' : 'Too many requests'} · netinfo`,
        description: notFound ? `There is no page at ${path}.` : error.message,
        active: 'lookup',
        attribution: '',
        main: notFound ? renderNotFound(path) : renderRefused(path, error.message),
      },
      error.status,
    );
  });
  registerSiteFiles(app, assets);

  // Browsers only (Accept with text/html): curl and the like get the address as text (src/text/).
  // HEAD / is ifconfig.co's 204 for everyone (src/text/).
  app.get('/', { ...pageRoute(), constraints: { answers: 'html' }, exposeHeadRoute: false }, async (request, reply) => {
    const answer = await callApi(app, request, '/api/v1/json');
    // The address is the connection's own and costs nothing: it shows whatever the API answered,
    // with the API's message where the looked-up facts would be.
    const found = answer.status === 200;
    if (!found) carryRefusalHeaders(reply, answer.headers);
    return page(
      reply,
      {
        title: 'What is my IP address? · netinfo',
        description: 'Your IP address, its location, network and security facts, from an open API.',
        active: 'home',
        scripts: ['home.js'],
        attribution: found ? attributionOf(answer.headers) : '',
        main: renderHome(assets, {
          ip: request.clientIp,
          facts: found && isIpAnswer(answer.body) ? { answer: answer.body } : { refusal: apiErrorText(answer) },
          rpkiAge: await rpkiAge(),
          origin: originOf(request),
          publicIpv4Url: config.publicIpv4Url,
          publicIpv6Url: config.publicIpv6Url,
        }),
      },
      answer.status,
    );
  });

  // The search box's form (it works without JavaScript): /lookup?q=X is /lookup/X.
  app.get('/lookup', pageRoute(), async (request, reply) => {
    const { q } = requestValues(request.query);
    const target = typeof q === 'string' ? q.trim() : '';
    return reply.redirect(target === '' ? '/' : `/lookup/${encodeURIComponent(target)}`, 303);
  });

  app.get('/lookup/:target', pageRoute(), async (request, reply) => {
    const target = String(requestValues(request.params).target);
    const kind = lookupKind(target);
    const apiPath = `/api/v1/${kind === 'asn' ? 'asn' : 'json'}/${encodeURIComponent(target)}`;
    const answer = await callApi(app, request, apiPath);
    if (answer.status !== 200) {
      const looksLikeName = kind === 'ip' && /^[a-z0-9.-]+\.[a-z]{2,}\.?$/i.test(target);
      const hint = looksLikeName
        ? `<p>To see the records of a name, use the <a href="/tools/dns?host=${encodeURIComponent(target)}&amp;type=A">DNS tool</a>.</p>`
        : '';
      return page(
        reply,
        {
          title: `${target} · netinfo`,
          description: `Lookup of ${target}`,
          active: 'lookup',
          query: target,
          attribution: '',
          main: `<h1>${e(target)}</h1><div class="alert error" role="alert"><p>${
            answer.status === 400
              ? `“${e(target)}” is not an IP address or an AS number.`
              : answer.status === 404
                ? `The loaded data knows no ${e(target)}.`
                : 'The lookup failed.'
          }</p><p>The API answered ${answer.status}: ${e(apiErrorText(answer))}</p></div>${hint}`,
        },
        answer.status,
      );
    }
    const { body } = answer;
    const age = await rpkiAge();
    const shown =
      kind === 'asn' && isAsnAnswer(body)
        ? { main: renderAsnLookup(body, apiPath, age), subject: body.asn }
        : isIpAnswer(body)
          ? { main: renderIpLookup(assets, body, apiPath, age), subject: body.ip }
          : undefined;
    if (shown === undefined) throw new Error(`${apiPath} answered 200 without its schema's shape`);
    const { main, subject } = shown;
    return page(reply, {
      title: `${subject} · netinfo`,
      description: `What netinfo knows about ${subject}: ${kind === 'asn' ? 'organisation and prefixes' : 'location, network and security facts'}.`,
      active: 'lookup',
      query: target,
      attribution: attributionOf(answer.headers),
      ...(kind === 'ip' ? { scripts: ['abuse-contact.js'] } : {}),
      main,
    });
  });

  app.get('/docs', pageRoute(), async (_request, reply) =>
    page(reply, {
      title: 'API reference · netinfo',
      description: 'Interactive reference of the netinfo API, generated from its OpenAPI document.',
      active: 'docs',
      attribution: '',
      styles: ['swagger-ui.css'],
      classicScripts: ['swagger-ui-bundle.js'],
      scripts: ['docs.js'],
      main: `${DOCS_INTRO}
<div class="api-reference" id="api-reference" data-openapi="/api/v1/openapi.json"><noscript><p class="alert warn">The interactive reference needs JavaScript; the document itself is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p></noscript></div>`,
    }),
  );
  const zone = config.resolverTestZone;
  // Only this page may connect to the test zone's names (any port: the site's own may not be the default).
  const resolverPolicy = zone === null ? policy : contentSecurityPolicy([...familyOrigins, `*.${zone}:*`]);
  app.get(RESOLVER_PAGE_PATH, pageRoute(), (request, reply) => {
    const { port } = requestValues(request.query);
    const main = renderResolverPage({
      ip: request.clientIp,
      publicIpv4Url: config.publicIpv4Url,
      publicIpv6Url: config.publicIpv6Url,
      zone,
      origin: originOf(request),
      port: typeof port === 'string' ? port.trim().slice(0, 5) : '',
    });
    const pageOptions: PageOptions = {
      title: 'Which DNS resolver am I using? · netinfo',
      description:
        'Your DNS resolvers, whether they send your subnet and validate DNSSEC, your IPv4 and IPv6 addresses, and a port check.',
      active: 'resolver',
      scripts: ['home.js', 'resolver.js'],
      attribution: '',
      main,
    };
    return sendPage(reply, renderPage(assets, pageOptions), resolverPolicy);
  });

  app.get('/tools', pageRoute(), (_request, reply) =>
    page(reply, {
      title: 'Network tools · netinfo',
      description:
        'DNS, WHOIS, SSL, blacklist, mail, HTTP, ping, traceroute, MTR and the resolver test, each a page over the public API.',
      active: 'tools',
      attribution: '',
      main: renderToolList([...TOOLS, RESOLVER_TOOL_ENTRY, NODES_TOOL_ENTRY]),
    }),
  );
  app.get('/nodes', pageRoute(), async (request, reply) => {
    const answer = await callApi(app, request, '/api/v1/nodes');
    if (answer.status !== 200) carryRefusalHeaders(reply, answer.headers);
    return page(
      reply,
      {
        title: 'Nodes · netinfo',
        description: NODES_TOOL_ENTRY.summary,
        active: 'tools',
        attribution: '',
        styles: ['mesh.css'],
        main: renderNodesPage(nodesOf(answer.status, answer.body), {
          mapUrl: assets.url('world.svg'),
          refusal: answer.status === 200 ? null : apiErrorText(answer),
          origin: originOf(request),
        }),
      },
      answer.status,
    );
  });
  for (const tool of TOOLS) {
    // Resolved on the first visit: the API's routes are plugins that register at ready.
    let resolved: ToolPage | undefined;
    // The page holds only the form: its script fetches the API's answer from the browser, as any client.
    const mesh = MESH_TOOL_KEYS.has(tool.key);
    app.get(tool.path, pageRoute(), (request, reply) => {
      resolved ??= { ...toolPage(tool, options.routes), monitor: monitorTypes(options.routes).includes(tool.key) };
      const query = requestValues(request.query);
      const from = mesh ? { fields: renderFromChoice(query, assets.url('world.svg')), hint: FROM_HINT } : null;
      return page(reply, {
        title: toolTitle(resolved, query),
        description: tool.summary,
        active: tool.key,
        scripts: [tool.script],
        ...(mesh ? { styles: ['mesh.css'] } : {}),
        attribution: '',
        main: renderToolPage(resolved, query, from),
      });
    });
  }
}

const DOCS_INTRO = `<h1>API reference</h1>
<p class="lead">Every endpoint of this instance, generated from its OpenAPI document
(<a href="/api/v1/openapi.json">/api/v1/openapi.json</a>). "Try it out" sends the request to this
instance, with the same limits as any client; an API key from the <a href="/dashboard">dashboard</a> goes
in "Authorize".</p>`;

/**
 * The two files browsers and crawlers ask for by name: not counted against any limit (they are not
 * API calls), cached for a day. /favicon.ico is the site's SVG icon, served as SVG (no second
 * drawing to keep in step): browsers ask for it where a page names no icon (a JSON answer).
 */
function registerSiteFiles(app: FastifyInstance, assets: AssetStore): void {
  const icon = assets.get('icon.svg');
  if (icon === undefined) throw new Error('the site icon (icon.svg) is missing from the assets');
  const daily = 'public, max-age=86400';
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) =>
    reply.type(icon.type).header('cache-control', daily).header('x-content-type-options', 'nosniff').send(icon.body),
  );
  app.get('/robots.txt', { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/plain; charset=utf-8').header('cache-control', daily).send(ROBOTS_TXT),
  );
}

/**
 * Crawlers may read the pages; the lookups, tool answers and the API are calls that count against
 * a limit and change with every visit, and the dashboard is private.
 */
const ROBOTS_TXT = `User-agent: *
Allow: /
Disallow: /api/
Disallow: /lookup
Disallow: /dashboard
`;

/** A refused call's limit headers, on the page that shows the refusal (Retry-After for a 429). */
function carryRefusalHeaders(reply: FastifyReply, headers: ApiAnswer['headers']): void {
  for (const name of ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    const value = headers[name];
    if (value !== undefined) reply.header(name, value);
  }
}

function origin(url: string): string {
  return new URL(url).origin;
}

// A 200 of the route the page called has that route's response schema: the API serialised it.
const isIpAnswer = (body: unknown): body is IpAnswer => hasKey(body, 'ip');
const isAsnAnswer = (body: unknown): body is AsnPageAnswer => hasKey(body, 'asn');
