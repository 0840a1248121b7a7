import type { Catalogs } from '../shared/i18n.ts';
import de from './messages/de.ts';
import en, { type BridgeMessages } from './messages/en.ts';
import es from './messages/es.ts';
import fr from './messages/fr.ts';
import nl from './messages/nl.ts';

/**
 * Every language ships inside the panel's own chunk: the chunk is fetched only by pages that show the
 * panel, and a few kilobytes of text are not worth a second round trip after it (nor chunks that
 * only another chunk imports).
 */
export const bridgeCatalogs: Catalogs<BridgeMessages> = {
  en,
  de: async () => ({ default: de }),
  fr: async () => ({ default: fr }),
  es: async () => ({ default: es }),
  nl: async () => ({ default: nl }),
};
