import type { Catalogs } from '../shared/i18n.ts';
import en, { type OnrampMessages } from './messages/en.ts';

/**
 * English ships in the on-ramp's chunk; each other language is a chunk of its own, fetched when
 * first used (the element shows its surface meanwhile, never English first).
 */
export const onrampCatalogs: Catalogs<OnrampMessages> = {
  en,
  de: () => import('./messages/de.ts'),
  fr: () => import('./messages/fr.ts'),
  es: () => import('./messages/es.ts'),
  nl: () => import('./messages/nl.ts'),
};
