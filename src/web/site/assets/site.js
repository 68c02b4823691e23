// Every page: copy buttons. Loaded as a module from this origin (no inline script: the CSP forbids it).
for (const button of document.querySelectorAll('[data-copy]')) {
  button.addEventListener('click', async () => {
    const text = button.getAttribute('data-copy') ?? '';
    const label = button.textContent;
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
    }, 1500);
  });
}
