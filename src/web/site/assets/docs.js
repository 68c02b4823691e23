// /docs: the interactive API reference, rendered by Swagger UI (served by this instance, like
// everything else) from this instance's own OpenAPI document; "Try it out" calls this instance.
const mount = document.getElementById('api-reference');
if (mount && typeof window.SwaggerUIBundle === 'function') {
  mount.textContent = '';
  window.SwaggerUIBundle({
    url: mount.getAttribute('data-openapi') ?? '/api/v1/openapi.json',
    domNode: mount,
    deepLinking: true,
    tryItOutEnabled: true,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    // No validator badge: it would load an image from validator.swagger.io.
    validatorUrl: null,
  });
}
