import { renderAddresses } from './home-page.ts';
import { escapeHtml as e } from './html.ts';
import { codeBlock } from './ip-view.ts';

export const RESOLVER_PAGE_PATH = '/tools/resolver';
/** Its entry in the /tools list, beside the pages made from tool definitions. */
export const RESOLVER_TOOL_ENTRY = {
  path: RESOLVER_PAGE_PATH,
  heading: 'Resolver',
  summary: 'Which DNS resolvers answer for you, whether they send your subnet and validate DNSSEC; and a port check.',
};

export interface ResolverPageView {
  readonly ip: string;
  readonly publicIpv4Url: string | null;
  readonly publicIpv6Url: string | null;
  /** RESOLVER_TEST_ZONE; null: the test is off. */
  readonly zone: string | null;
  /** This instance's origin as the visitor reached it, for the commands shown. */
  readonly origin: string;
  /** `?port=` of the URL: the port check runs as the page opens. */
  readonly port: string;
}

/**
 * The self-test: the visitor's addresses (both families as on the home page), which resolvers look
 * up names for them (resolver.js runs the test of GET /api/v1/resolver/{token} in the browser), and
 * whether the service reaches a port of theirs (GET /api/v1/port/{n}).
 */
export function renderResolverPage(view: ResolverPageView): string {
  const { zone } = view;
  const resolverCard =
    zone === null
      ? `<p class="alert warn">The resolver test is off on this instance: its operator has not set <code>RESOLVER_TEST_ZONE</code>, the DNS zone delegated to this service that the test looks names up in (docs/deployment.md, “Which resolver am I using”).</p>`
      : `<p id="resolver-summary" class="status" role="status" aria-live="polite">Looking up the test's names…</p>
<noscript><p class="alert warn">The test runs in your browser and needs JavaScript. From a terminal, the command below asks your resolver who it is.</p></noscript>
<div id="resolver-result"></div>
<div class="actions"><button type="button" id="resolver-again" class="secondary">Test again</button></div>
<p>From a terminal, your resolver's address (and the client subnet it sends) as our name server sees it:</p>
${codeBlock(`dig +short TXT whoami.${zone}`, 'the dig command')}`;
  return `<h1>Which DNS resolver am I using?</h1>
<p class="lead">The resolvers that look up names for you, who runs them, whether they tell name servers your subnet (ECS) and whether they validate DNSSEC; your IPv4 and IPv6 addresses; and whether a port of yours is reachable from the internet.</p>
<section class="hero" aria-label="Your IP addresses">
${renderAddresses(view)}
</section>
<div class="grid">
<section class="card wide" aria-labelledby="resolver-title" data-resolver-zone="${e(zone ?? '')}" data-origin="${e(view.origin)}">
<h2 id="resolver-title">Your DNS resolvers</h2>
${resolverCard}
</section>
<section class="card wide" aria-labelledby="port-title">
<h2 id="port-title">Is my port open?</h2>
<p>The service opens one TCP connection to your address on the port you give (at most 2 seconds).</p>
<form class="tool" id="port-form" method="get" action="${RESOLVER_PAGE_PATH}">
<div class="field narrow"><label for="port-number">Port</label><input id="port-number" name="port" type="number" inputmode="numeric" min="1" max="65535" required value="${e(view.port)}"></div>
<div class="actions"><button type="submit">Check port</button></div>
</form>
<p id="port-result" class="status" role="status" aria-live="polite"></p>
</section>
</div>`;
}
