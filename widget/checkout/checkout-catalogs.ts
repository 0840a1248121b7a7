import type { Catalogs } from '../shared/i18n.ts';
import en, { type CheckoutMessages } from './messages/en.ts';

/** English ships in kassa.js; each other language is its own small chunk, fetched when first used. */
export const checkoutCatalogs: Catalogs<CheckoutMessages> = {
  en,
  de: () => import('./messages/de.ts'),
  fr: () => import('./messages/fr.ts'),
  es: () => import('./messages/es.ts'),
  nl: () => import('./messages/nl.ts'),
};
