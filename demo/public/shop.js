// The demo shop's page script (served from 'self'): the "Try it" controls set the elements'
// attributes, and every kassa-* event is listed, as a shop's own code would listen to them.
const elements = document.querySelectorAll('kassa-checkout, kassa-bridge, kassa-onramp');
const events = document.getElementById('events');

for (const name of ['locale', 'theme', 'mode']) {
  const control = document.getElementById(name);
  if (!control) continue;
  const stored = sessionStorage.getItem(`demo:${name}`);
  if (stored) control.value = stored;
  const apply = () => {
    sessionStorage.setItem(`demo:${name}`, control.value);
    for (const element of elements) {
      // The bank page's mode is the checkout's (and the on-ramp's, which pays through one) only.
      if (name !== 'mode' || element.localName !== 'kassa-bridge') element.setAttribute(name, control.value);
    }
  };
  control.addEventListener('change', apply);
  if (stored) apply();
}

/** One line per event: what a shop would log or act on. */
function summary(type, detail) {
  if (type.startsWith('kassa-bridge-')) {
    if (type === 'kassa-bridge-error') return `${detail.kind} at ${detail.stage}: ${detail.message}`;
    const transfer = `${detail.amount} ${detail.symbol} ${detail.sourceChainId} → ${detail.destinationChainId}, ${detail.hash}`;
    return type === 'kassa-bridge-arrived' ? `${transfer}, balance there ${detail.balance}` : transfer;
  }
  if (type === 'kassa-onramp-status')
    return `${detail.state}: ${detail.amount} ${detail.symbol} on ${detail.chainName}`;
  if (type === 'kassa-onramp-delivered')
    return `${detail.amount} ${detail.symbol} on chain ${detail.chainId} to ${detail.wallet}, ${detail.txHash}`;
  if (detail.kind)
    return `${detail.kind}${detail.stage ? ` at ${detail.stage}` : ''} (${detail.status}) ${detail.message}`;
  if (detail.status) return `${detail.status} ${detail.networkStatus ?? ''}`;
  return `${detail.transactionId}${detail.replayed ? ' (found again)' : ''}`;
}

const TYPES = [
  'kassa-payment-created',
  'kassa-status',
  'kassa-completed',
  'kassa-failed',
  'kassa-error',
  'kassa-bridge-submitted',
  'kassa-bridge-mined',
  'kassa-bridge-arrived',
  'kassa-bridge-error',
  'kassa-onramp-status',
  'kassa-onramp-delivered',
];
for (const type of TYPES) {
  document.addEventListener(type, (event) => {
    const item = document.createElement('li');
    item.textContent = `${new Date().toLocaleTimeString()} ${type}: ${summary(type, event.detail)}`;
    events.append(item);
  });
}

// The order page asks the shop's own server whether it has confirmed the payment: only the proxy's
// signed `checkout.paid` event, verified there, confirms it; what the browser saw does not. Not while
// the page is hidden in the back/forward cache (a request under way would keep it out): it asks again
// when the page is shown.
const confirmation = document.getElementById('confirmation');
if (confirmation && confirmation.dataset.confirmed !== 'yes') {
  let timer;
  let asking;
  const poll = async () => {
    const { signal } = (asking = new AbortController());
    try {
      const response = await fetch('/order/confirmation', { headers: { Accept: 'application/json' }, signal });
      const answer = await response.json();
      if (answer.confirmed) {
        confirmation.textContent = answer.message;
        confirmation.dataset.confirmed = 'yes';
        return;
      }
    } catch {
      // The shop restarting: ask again.
    }
    if (!signal.aborted) timer = setTimeout(poll, 1000);
  };
  addEventListener('pagehide', () => {
    clearTimeout(timer);
    asking.abort();
  });
  addEventListener('pageshow', (event) => {
    if (event.persisted && confirmation.dataset.confirmed !== 'yes') void poll();
  });
  void poll();
}
