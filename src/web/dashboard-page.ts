import type { AccountOverview } from '../accounts/account-service.ts';
import type { ApiKeyRecord } from '../storage/repository.ts';
import type { AssetStore } from './site/assets.ts';
import { escapeHtml as e, grouped, utcMinute } from './site/html.ts';
import { renderPage } from './site/layout.ts';

export interface AssetUrls {
  readonly css: string;
  readonly js: string;
}

export interface SignedInView {
  readonly overview: AccountOverview;
  readonly keys: readonly ApiKeyRecord[];
  readonly csrfToken: string;
  /** The service's own address as the browser sees it, for the curl example. */
  readonly origin: string;
  /** The monitors section (monitors-page.ts), or '' when the API has none. */
  readonly monitors: string;
}

const PLAN_NAMES = { free: 'Free', pro: 'Pro' } as const;

function page(site: AssetStore, title: string, assets: AssetUrls, main: string, csrfToken?: string, monitors = false) {
  return renderPage(site, {
    title,
    description: 'Create and revoke netinfo API keys, see your plan, limits and usage, and watch checks with monitors.',
    active: 'dashboard',
    attribution: '',
    main,
    ...(monitors ? { scripts: ['monitors.js'], styles: ['mesh.css', 'monitors.css'] } : {}),
    head: `<link rel="stylesheet" href="${e(assets.css)}">
${csrfToken ? `<meta name="csrf-token" content="${e(csrfToken)}">` : ''}
<script src="${e(assets.js)}" defer></script>`,
  });
}

function credentialsForm(kind: 'login' | 'signup'): string {
  const login = kind === 'login';
  const id = (name: string) => `${kind}-${name}`;
  return `<section class="card" aria-labelledby="${id('title')}">
<h2 id="${id('title')}">${login ? 'Log in' : 'Create an account'}</h2>
<form id="${id('form')}" data-action="${kind}">
<label for="${id('email')}">Email</label>
<input id="${id('email')}" name="email" type="email" autocomplete="${login ? 'username' : 'email'}" required maxlength="254">
<label for="${id('password')}">Password</label>
<input id="${id('password')}" name="password" type="password" autocomplete="${login ? 'current-password' : 'new-password'}" required${login ? '' : ` minlength="10" maxlength="128" aria-describedby="${id('hint')}"`}>
${login ? '' : `<p class="hint" id="${id('hint')}">10 to 128 characters, not a common password and not your email. A passphrase of a few words works well.</p>`}
<p class="form-error" id="${id('error')}" role="alert"></p>
<button type="submit">${login ? 'Log in' : 'Create account'}</button>
</form>
</section>`;
}

export function renderSignedOut(site: AssetStore, assets: AssetUrls): string {
  return page(
    site,
    'API keys: log in · netinfo',
    assets,
    `<h1>API keys for netinfo</h1>
<p class="lead">Without a key the API allows 100 requests an hour per address. With a key of a free account: 1,000 an hour and 10,000 a day, counted per account.</p>
<noscript><p class="form-error">This dashboard needs JavaScript to log in and manage keys.</p></noscript>
<div class="columns">
${credentialsForm('login')}
${credentialsForm('signup')}
</div>`,
  );
}

function usageRow(label: string, used: number, limit: number, reset: number): string {
  return `<div class="usage">
<div class="usage-label"><span>${label}</span><span>${grouped(used)} of ${grouped(limit)}</span></div>
<progress max="${limit}" value="${Math.min(used, limit)}" aria-label="${label}: ${grouped(used)} of ${grouped(limit)} requests"></progress>
<p class="hint">Resets ${utcMinute(reset * 1000)}</p>
</div>`;
}

export function keyRow(key: ApiKeyRecord): string {
  return `<tr data-key-id="${e(key.id)}">
<td data-label="Name">${e(key.name)}</td>
<td data-label="Key"><code>${e(key.displayPrefix)}…</code></td>
<td data-label="Created"><time datetime="${new Date(key.createdAt).toISOString()}">${utcMinute(key.createdAt)}</time></td>
<td data-label="Last used">${key.lastUsedAt === null ? 'never' : `<time datetime="${new Date(key.lastUsedAt).toISOString()}">${utcMinute(key.lastUsedAt)}</time>`}</td>
<td data-label=""><button type="button" class="danger revoke" data-key-id="${e(key.id)}" data-key-name="${e(key.name)}" aria-label="Revoke key ${e(key.name)}">Revoke</button></td>
</tr>`;
}

export function renderSignedIn(site: AssetStore, assets: AssetUrls, view: SignedInView): string {
  const { overview, keys } = view;
  const full = overview.keys.active >= overview.keys.quota;
  return page(
    site,
    `Your API keys${view.monitors ? ' and monitors' : ''} · netinfo`,
    assets,
    `<div class="session"><h1>Your API keys${view.monitors ? ' and monitors' : ''}</h1>
<p class="who">Signed in as <strong>${e(overview.email)}</strong> <button type="button" id="logout" class="secondary">Log out</button></p></div>
<p class="status" id="status" role="status" aria-live="polite"></p>
<section class="card" aria-labelledby="plan-title">
<h2 id="plan-title">Plan and usage</h2>
<dl class="plan-facts">
<div><dt>Plan</dt><dd>${PLAN_NAMES[overview.plan]}${overview.plan === 'free' ? ' <span class="hint">(Pro: coming soon)</span>' : ''}</dd></div>
<div><dt>Limits</dt><dd>${grouped(overview.limits.hourly)} requests an hour, ${grouped(overview.limits.daily)} a day</dd></div>
<div><dt>Keys</dt><dd><span id="key-count" data-quota="${overview.keys.quota}">${overview.keys.active}</span> of ${overview.keys.quota}</dd></div>
</dl>
${usageRow('This hour', overview.usage.hourly.used, overview.usage.hourly.limit, overview.usage.hourly.reset)}
${usageRow('Today (UTC)', overview.usage.daily.used, overview.usage.daily.limit, overview.usage.daily.reset)}
</section>
<section class="card" aria-labelledby="create-title">
<h2 id="create-title">Create a key</h2>
<form id="create-key-form">
<label for="key-name">Name</label>
<input id="key-name" name="name" type="text" required maxlength="64" aria-describedby="key-name-hint">
<p class="hint" id="key-name-hint">What the key is for, e.g. “backup server”.</p>
<p class="form-error" id="create-error" role="alert">${full ? `You have ${overview.keys.quota} keys, the most your plan allows. Revoke one to create another.` : ''}</p>
<button type="submit">Create key</button>
</form>
<div id="new-key" class="new-key" tabindex="-1" hidden aria-labelledby="new-key-title">
<h3 id="new-key-title">Your new key</h3>
<p class="warning"><strong>Copy it now: it is shown only this once.</strong> The service keeps only a hash and an encrypted copy, and cannot show it again. Treat it like a password.</p>
<div class="key-line"><code id="new-key-value"></code><button type="button" id="copy-key">Copy</button></div>
<p class="hint" id="copy-status" role="status" aria-live="polite"></p>
<p class="hint">Use it as <code>curl -H "Authorization: Bearer <span class="key-example">nk_…</span>" ${e(view.origin)}/api/v1/ipv6</code></p>
<p class="hint">In a browser, where <code>EventSource</code> cannot send headers, the streams take it in the URL. Close the stream on its last event, <code>done</code> or <code>error</code>:</p>
<pre class="hint example"><code>const stream = new EventSource("${e(view.origin)}/api/v1/ping?host=example.com&amp;api_key=<span class="key-example">nk_…</span>");
stream.onmessage = (message) =&gt; {
  const event = JSON.parse(message.data);
  if (event.type === "done" || event.type === "error") stream.close();
};
stream.onerror = () =&gt; stream.close();</code></pre>
<p class="hint">A URL is kept in histories and logs, so give such a page a key of its own.</p>
</div>
</section>
<section class="card" aria-labelledby="keys-title">
<h2 id="keys-title" tabindex="-1">Active keys</h2>
<p id="no-keys"${keys.length > 0 ? ' hidden' : ''}>No active keys. Create one above.</p>
<table id="keys-table"${keys.length === 0 ? ' hidden' : ''}>
<caption class="visually-hidden">Your active API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody id="key-rows">
${keys.map(keyRow).join('\n')}
</tbody>
</table>
<p class="hint">Last used times are written about once a minute.</p>
</section>
${view.monitors}`,
    view.csrfToken,
    view.monitors !== '',
  );
}
