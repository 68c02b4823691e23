// /docs: the interactive API reference, rendered by Swagger UI (served by this instance, like
// everything else) from this instance's own OpenAPI document; "Try it out" calls this instance.
const mount = document.getElementById('api-reference');

/**
 * What Swagger UI leaves out for assistive technology, added as it renders: a name for each
 * unlabelled select (the server list, parameter enums). Deep links are off: they put a link inside
 * each operation's toggle button, a control inside a control.
 */
function labelControls(root) {
  for (const select of root.querySelectorAll('select:not([aria-label]):not([aria-labelledby])')) {
    const label =
      select.id === 'servers'
        ? 'Server'
        : (select.closest('tr')?.querySelector('.parameter__name')?.textContent ?? 'Value');
    select.setAttribute('aria-label', label.trim().replace(/\s*\*$/, ''));
  }
}

if (mount && typeof window.SwaggerUIBundle === 'function') {
  mount.textContent = '';
  new MutationObserver(() => labelControls(mount)).observe(mount, { childList: true, subtree: true });
  window.SwaggerUIBundle({
    url: mount.getAttribute('data-openapi') ?? '/api/v1/openapi.json',
    domNode: mount,
    deepLinking: false,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    // No validator badge: it would load an image from validator.swagger.io.
    validatorUrl: null,
  });
}
