// The IP lookup page: whom to write to about abuse from the address, from /api/v1/abuse once the page
// has loaded (the registry can take seconds to answer; the page never waits for it).
const line = document.querySelector('[data-abuse-ip]');
const out = line?.querySelector('.value');
if (line && out) {
  line.hidden = false;
  fetch(`/api/v1/abuse?ip=${encodeURIComponent(line.getAttribute('data-abuse-ip') ?? '')}`)
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error(String(response.status)))))
    .then((contact) => {
      // A plain address only: a registry's text must not add headers or recipients to the mail.
      const email = /^[^\s?&#,;]+@[^\s?&#,;]+$/.test(contact.email) ? contact.email : null;
      const address = document.createElement(email ? 'a' : 'span');
      if (email) address.href = `mailto:${email}`;
      address.textContent = contact.email;
      out.replaceChildren(address, ` (${contact.registry})`);
      out.classList.remove('unknown');
    })
    .catch(() => {
      out.textContent = 'no abuse contact found';
      out.classList.add('unknown');
    });
}
