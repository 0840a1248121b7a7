/**
 * Loads an element's module the first time the page uses its tag: at once if the document already
 * has one, else as soon as one is added. Until then the page downloads nothing for it, which keeps
 * heavy elements (the wallet panel brings ethers) out of kassa.js.
 *
 * Elements inside another component's shadow root are not seen: such a component imports the
 * element's module itself.
 */
export function defineOnUse(tag: string, load: () => Promise<unknown>): void {
  let loading = false;
  const observer = new MutationObserver(() => check());
  const check = () => {
    if (loading || customElements.get(tag) || !document.querySelector(tag)) return;
    loading = true;
    observer.disconnect();
    load().catch((error: unknown) => {
      // Offline or blocked: try again when the page next changes.
      console.error(`Kassa: could not load <${tag}>`, error);
      loading = false;
      observer.observe(document, { childList: true, subtree: true });
    });
  };
  observer.observe(document, { childList: true, subtree: true });
  check();
}
