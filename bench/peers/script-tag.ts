/**
 * What the checkout costs the shop's page to load: dist/widget/kassa.js gzipped (Lit included,
 * everything a first render needs) against the alternatives a merchant would add instead, each
 * built here with Vite the way a merchant's site would build it.
 */
import { readFileSync } from 'node:fs';
import { ensureWidgetBuilt, WIDGET_BUNDLE } from '../../demo/widget-build.ts';
import { filesSize, gzipSize } from './gzip-size.ts';
import { kb, reasonOf, type Figure, type Report } from './report.ts';
import { buildApp } from './vite-app.ts';
import { installPeer } from './work-folder.ts';

const WHAT = 'checkout script-tag cost (gzip)';
export const ADYEN = { '@adyen/adyen-web': '6.45.2' };
export const STRIPE = { '@stripe/stripe-js': '10.2.1' };

const page = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body><div id="payment"></div><script type="module" src="./main.js"></script></body></html>\n`;

/** Adyen's web SDK with its tree-shakable ESM exports: the core and one open-banking method, with its stylesheet. */
const ADYEN_MAIN = `import { AdyenCheckout, PayByBank } from '@adyen/adyen-web';
import '@adyen/adyen-web/styles/adyen.css';

AdyenCheckout({
  environment: 'test',
  clientKey: 'test_BENCHMARKCLIENTKEY0000000000000',
  countryCode: 'NL',
  locale: 'en-US',
  amount: { value: 4250, currency: 'EUR' },
  paymentMethodsResponse: { paymentMethods: [{ type: 'paybybank', name: 'Pay by Bank' }] },
  onSubmit: (state, component, actions) => actions.reject(),
}).then((checkout) => new PayByBank(checkout).mount('#payment'));
`;

/** Stripe's npm loader: it adds the js.stripe.com/v3 script tag, which does the actual work. */
const STRIPE_MAIN = `import { loadStripe } from '@stripe/stripe-js';

document.querySelector('#payment').addEventListener('click', () => loadStripe('pk_test_benchmark'));
`;

/**
 * The remote script the loader adds at run time. Stripe's documentation (the Stripe.js reference,
 * "Including Stripe.js", the loader's README) gives no size for it, so none is printed as if it did.
 */
export const STRIPE_REMOTE_SCRIPT =
  'js.stripe.com/v3, which the loader adds to the page at run time: not measured (no internet here), and no documented size: Stripe’s docs (the Stripe.js reference, "Including Stripe.js", the loader’s README) give none';

export async function scriptTagCost(report: Report): Promise<void> {
  if (ensureWidgetBuilt()) report.note('built the widget (vite build)');
  const bundle = readFileSync(WIDGET_BUNDLE);
  const kassa: Figure = { label: 'dist/widget/kassa.js', value: gzipSize(bundle), unit: 'bytes' };
  report.note(
    `dist/widget/kassa.js: ${kb(bundle.length)} minified, ${kb(kassa.value)} gzipped (Lit included, no CSS file)`,
  );

  try {
    const installed = await installPeer('adyen', ADYEN);
    report.note(`installed @adyen/adyen-web ${ADYEN['@adyen/adyen-web']} (${installed.seconds.toFixed(1)} s)`);
    const built = await buildApp(installed.dir, { 'index.html': page('Adyen Pay by Bank'), 'main.js': ADYEN_MAIN });
    const js = filesSize(built.js);
    const css = filesSize(built.css);
    report.note(
      `Adyen core + PayByBank, Vite build: JS ${js.files} file(s) ${kb(js.raw)} minified, ${kb(js.gzip)} gzipped; ` +
        `its stylesheet (needed for the component to look right) ${kb(css.raw)}, ${kb(css.gzip)} gzipped`,
    );
    report.ratio(WHAT, kassa, { label: '@adyen/adyen-web PayByBank JS', value: js.gzip, unit: 'bytes' });
    report.ratio(WHAT, kassa, {
      label: '@adyen/adyen-web PayByBank JS+CSS',
      value: js.gzip + css.gzip,
      unit: 'bytes',
    });
  } catch (error) {
    report.unavailable(WHAT, kassa, '@adyen/adyen-web', reasonOf(error));
  }

  try {
    const installed = await installPeer('stripe', STRIPE);
    report.note(`installed @stripe/stripe-js ${STRIPE['@stripe/stripe-js']} (${installed.seconds.toFixed(1)} s)`);
    const built = await buildApp(installed.dir, { 'index.html': page('Stripe loader'), 'main.js': STRIPE_MAIN });
    const js = filesSize(built.js);
    report.note(`Stripe's loader, Vite build: ${js.files} file(s), ${kb(js.raw)} minified, ${kb(js.gzip)} gzipped`);
    report.ratio(WHAT, kassa, {
      label: '@stripe/stripe-js loader (js.stripe.com/v3 not counted)',
      value: js.gzip,
      unit: 'bytes',
    });
    report.note(STRIPE_REMOTE_SCRIPT);
  } catch (error) {
    report.unavailable(WHAT, kassa, '@stripe/stripe-js', reasonOf(error));
  }
}
