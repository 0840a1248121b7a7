// The demo shop's page script (served from 'self'): the "Try it" controls set the element's
// attributes, and every kassa-* event is listed, as a shop's own code would listen to them.
const checkout = document.querySelector('kassa-checkout');
const events = document.getElementById('events');

for (const name of ['locale', 'theme', 'mode']) {
  const control = document.getElementById(name);
  const stored = sessionStorage.getItem(`demo:${name}`);
  if (stored) control.value = stored;
  const apply = () => {
    sessionStorage.setItem(`demo:${name}`, control.value);
    checkout?.setAttribute(name, control.value);
  };
  control.addEventListener('change', apply);
  if (stored) apply();
}

for (const type of ['kassa-payment-created', 'kassa-status', 'kassa-completed', 'kassa-failed', 'kassa-error']) {
  document.addEventListener(type, (event) => {
    const { detail } = event;
    const summary = detail.kind
      ? `${detail.kind} (${detail.status}) ${detail.message}`
      : detail.status
        ? `${detail.status} ${detail.networkStatus ?? ''}`
        : `${detail.transactionId}${detail.replayed ? ' (found again)' : ''}`;
    const item = document.createElement('li');
    item.textContent = `${new Date().toLocaleTimeString()} ${type}: ${summary}`;
    events.append(item);
  });
}
