// Every page: copy buttons, those in the page and those a script adds later (one listener on the
// document). Loaded as a module from this origin (no inline script: the CSP forbids it).
document.addEventListener('click', async (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button || button.dataset.copying) return;
  const text = button.getAttribute('data-copy') ?? '';
  const label = button.textContent;
  button.dataset.copying = 'yes';
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    // No clipboard (an insecure origin, or permission refused): select the text instead.
    const code = button.parentElement?.querySelector('code, .address');
    if (code) getSelection()?.selectAllChildren(code);
    button.textContent = 'Select and copy';
  }
  setTimeout(() => {
    button.textContent = label;
    delete button.dataset.copying;
  }, 1500);
});
