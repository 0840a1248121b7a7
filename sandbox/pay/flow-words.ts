import { acceptedLanguage } from '../../lib/accept-language.ts';

/** What the sandbox bank's pages say, in the languages Kassa's elements speak. */
export interface FlowWords {
  locale: string;
  sandbox: string;
  payByBank: string;
  reference: string;
  /** Before the merchant's name: who is paid. */
  payee: string;
  findBank: string;
  search: string;
  /** No bank's name holds what was searched for ({query}). */
  noBankFound: string;
  allBanks: string;
  chooseBank: string;
  chooseToAuthorise: string;
  authorise: string;
  cancel: string;
  notFound: string;
  notValid: string;
  finished: string;
  finishedCompleted: string;
  finishedFailed: string;
  backToMerchant: string;
}

const WORDS = {
  en: {
    locale: 'en-GB',
    sandbox: 'Sandbox',
    payByBank: 'Pay by bank',
    reference: 'Reference',
    payee: 'To',
    findBank: 'Find your bank',
    search: 'Search',
    noBankFound: 'No bank matches “{query}”.',
    allBanks: 'Show all banks',
    chooseBank: 'Choose your bank',
    chooseToAuthorise: 'Choose your bank to authorise the payment.',
    authorise: 'Authorise payment',
    cancel: 'Cancel',
    notFound: 'Payment not found',
    notValid: 'This payment link is not valid.',
    finished: 'Payment finished',
    finishedCompleted: 'This payment is completed.',
    finishedFailed: 'This payment is failed.',
    backToMerchant: 'Return to the merchant',
  },
  de: {
    locale: 'de-DE',
    sandbox: 'Sandbox',
    payByBank: 'Per Bank bezahlen',
    reference: 'Referenz',
    payee: 'An',
    findBank: 'Bank suchen',
    search: 'Suchen',
    noBankFound: 'Keine Bank passt zu „{query}“.',
    allBanks: 'Alle Banken zeigen',
    chooseBank: 'Wählen Sie Ihre Bank',
    chooseToAuthorise: 'Wählen Sie Ihre Bank, um die Zahlung freizugeben.',
    authorise: 'Zahlung freigeben',
    cancel: 'Abbrechen',
    notFound: 'Zahlung nicht gefunden',
    notValid: 'Dieser Zahlungslink ist ungültig.',
    finished: 'Zahlung abgeschlossen',
    finishedCompleted: 'Diese Zahlung ist ausgeführt.',
    finishedFailed: 'Diese Zahlung ist fehlgeschlagen.',
    backToMerchant: 'Zurück zum Händler',
  },
  fr: {
    locale: 'fr-FR',
    sandbox: 'Sandbox',
    payByBank: 'Payer par virement',
    reference: 'Référence',
    payee: 'À',
    findBank: 'Trouver votre banque',
    search: 'Rechercher',
    noBankFound: 'Aucune banque ne correspond à « {query} ».',
    allBanks: 'Afficher toutes les banques',
    chooseBank: 'Choisissez votre banque',
    chooseToAuthorise: 'Choisissez votre banque pour autoriser le paiement.',
    authorise: 'Autoriser le paiement',
    cancel: 'Annuler',
    notFound: 'Paiement introuvable',
    notValid: 'Ce lien de paiement n’est pas valide.',
    finished: 'Paiement terminé',
    finishedCompleted: 'Ce paiement est effectué.',
    finishedFailed: 'Ce paiement a échoué.',
    backToMerchant: 'Retour au marchand',
  },
  es: {
    locale: 'es-ES',
    sandbox: 'Sandbox',
    payByBank: 'Pagar por banco',
    reference: 'Referencia',
    payee: 'Para',
    findBank: 'Buscar su banco',
    search: 'Buscar',
    noBankFound: 'Ningún banco coincide con «{query}».',
    allBanks: 'Mostrar todos los bancos',
    chooseBank: 'Elija su banco',
    chooseToAuthorise: 'Elija su banco para autorizar el pago.',
    authorise: 'Autorizar el pago',
    cancel: 'Cancelar',
    notFound: 'Pago no encontrado',
    notValid: 'Este enlace de pago no es válido.',
    finished: 'Pago terminado',
    finishedCompleted: 'Este pago se ha completado.',
    finishedFailed: 'Este pago ha fallado.',
    backToMerchant: 'Volver al comercio',
  },
  nl: {
    locale: 'nl-NL',
    sandbox: 'Sandbox',
    payByBank: 'Betalen via de bank',
    reference: 'Referentie',
    payee: 'Aan',
    findBank: 'Zoek uw bank',
    search: 'Zoeken',
    noBankFound: 'Geen bank past bij „{query}”.',
    allBanks: 'Alle banken tonen',
    chooseBank: 'Kies uw bank',
    chooseToAuthorise: 'Kies uw bank om de betaling goed te keuren.',
    authorise: 'Betaling goedkeuren',
    cancel: 'Annuleren',
    notFound: 'Betaling niet gevonden',
    notValid: 'Deze betaallink is niet geldig.',
    finished: 'Betaling afgerond',
    finishedCompleted: 'Deze betaling is uitgevoerd.',
    finishedFailed: 'Deze betaling is mislukt.',
    backToMerchant: 'Terug naar de winkel',
  },
} satisfies Record<string, FlowWords>;

type Language = keyof typeof WORDS;
const LANGUAGES = Object.keys(WORDS) as Language[];

/**
 * The page's language: `lang` in the address when a checkout passes the customer's language on,
 * else the browser's Accept-Language, else English.
 */
export function flowWords(lang: string | undefined, acceptLanguage: string | undefined): [Language, FlowWords] {
  const language = acceptedLanguage(lang ? `${lang}, ${acceptLanguage ?? ''}` : acceptLanguage, LANGUAGES);
  return [language, WORDS[language]];
}
