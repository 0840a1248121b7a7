import de from './de.ts';
import en, { type BridgeMessages } from './en.ts';
import es from './es.ts';
import fr from './fr.ts';
import nl from './nl.ts';

/** The panel's messages in every language at once, for the extension's pages (which load them locally, not over the network). */
export const bridgeMessages: Record<'en' | 'de' | 'fr' | 'es' | 'nl', BridgeMessages> = { en, de, fr, es, nl };
