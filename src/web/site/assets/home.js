// The home page: with PUBLIC_IPV4_URL and PUBLIC_IPV6_URL configured, ask each for /api/v1/ipv6 so
// the visitor sees both of their addresses; a family that does not connect says "none".
for (const box of document.querySelectorAll('[data-family-url]')) {
  const base = box.getAttribute('data-family-url');
  const out = box.querySelector('.address');
  if (!base || !out) continue;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  fetch(`${base}/api/v1/ipv6`, { signal: controller.signal, cache: 'no-store' })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error(String(response.status)))))
    .then((answer) => {
      out.textContent = answer.ip;
    })
    .catch(() => {
      out.textContent = 'none';
      out.classList.add('unknown');
    })
    .finally(() => clearTimeout(timer));
}
