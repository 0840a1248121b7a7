/**
 * The words of a wallet outside this browser, in the chunk that shows them (fetched only by a page
 * whose customer has no wallet here, or chooses to use an address): every language, so no other
 * chunk is fetched for them.
 */
import { languageOf, type Language } from '../../shared/i18n.ts';

const en = {
  openInApp: 'Open in your wallet app',
  walletApps: 'Wallet apps',
  continueOnPhone: 'Continue on your phone',
  scanToContinue: 'Scan the code with your phone’s camera, then open the page in your wallet app.',
  qrLabel: 'QR code of this page, to open it on your phone',
  loopback: 'This page is on this computer ({host}): a phone cannot open it.',
  addressLabel: 'Your wallet address',
  addressHint: 'The stablecoins go to this address. Your wallet app signs a message with it to prove it is yours.',
  addressInvalid: 'Enter an address: 0x followed by 40 characters from 0–9 and a–f.',
  continue: 'Continue',
  back: 'Back',
  yourAddress: 'Your address',
  signTitle: 'Sign this message in your wallet app',
  signHow:
    'In your wallet app, open “Sign message”, paste the message exactly as it is and sign it with this address. Then paste the signature below. Signing costs nothing and sends nothing.',
  message: 'Message to sign',
  copyMessage: 'Copy message',
  copied: 'Copied',
  signature: 'Signature',
  signatureHint: 'It starts with 0x.',
  signatureInvalid: 'A signature is 0x followed by at least 128 characters from 0–9 and a–f.',
  signatureKey: 'This looks like a private key. Never share it with anyone: paste the signature instead.',
  signaturePhrase: 'This looks like a recovery phrase. Never share it with anyone: paste the signature instead.',
  waiting: 'Waiting for the signature from your wallet app…',
  confirm: 'Confirm purchase',
  cancel: 'Cancel',
};
export type OutsideMessages = typeof en;

const MESSAGES: Record<Language, OutsideMessages> = {
  en,
  de: {
    openInApp: 'In Ihrer Wallet-App öffnen',
    walletApps: 'Wallet-Apps',
    continueOnPhone: 'Auf dem Handy weitermachen',
    scanToContinue:
      'Scannen Sie den Code mit der Kamera Ihres Handys und öffnen Sie die Seite dann in Ihrer Wallet-App.',
    qrLabel: 'QR-Code dieser Seite, um sie auf Ihrem Handy zu öffnen',
    loopback: 'Diese Seite liegt auf diesem Computer ({host}): Ein Handy kann sie nicht öffnen.',
    addressLabel: 'Ihre Wallet-Adresse',
    addressHint:
      'Die Stablecoins gehen an diese Adresse. Ihre Wallet-App signiert damit eine Nachricht, die beweist, dass sie Ihnen gehört.',
    addressInvalid: 'Geben Sie eine Adresse ein: 0x und 40 Zeichen aus 0–9 und a–f.',
    continue: 'Weiter',
    back: 'Zurück',
    yourAddress: 'Ihre Adresse',
    signTitle: 'Signieren Sie diese Nachricht in Ihrer Wallet-App',
    signHow:
      'Öffnen Sie in Ihrer Wallet-App „Nachricht signieren“, fügen Sie die Nachricht unverändert ein und signieren Sie sie mit dieser Adresse. Fügen Sie dann die Signatur unten ein. Signieren kostet nichts und sendet nichts.',
    message: 'Zu signierende Nachricht',
    copyMessage: 'Nachricht kopieren',
    copied: 'Kopiert',
    signature: 'Signatur',
    signatureHint: 'Sie beginnt mit 0x.',
    signatureInvalid: 'Eine Signatur ist 0x und mindestens 128 Zeichen aus 0–9 und a–f.',
    signatureKey:
      'Das sieht wie ein privater Schlüssel aus. Geben Sie ihn niemals weiter: Fügen Sie stattdessen die Signatur ein.',
    signaturePhrase:
      'Das sieht wie eine Wiederherstellungsphrase aus. Geben Sie sie niemals weiter: Fügen Sie stattdessen die Signatur ein.',
    waiting: 'Warten auf die Signatur aus Ihrer Wallet-App…',
    confirm: 'Kauf bestätigen',
    cancel: 'Abbrechen',
  },
  fr: {
    openInApp: 'Ouvrir dans votre portefeuille',
    walletApps: 'Applications de portefeuille',
    continueOnPhone: 'Continuer sur votre téléphone',
    scanToContinue:
      'Scannez le code avec l’appareil photo de votre téléphone, puis ouvrez la page dans votre application de portefeuille.',
    qrLabel: 'QR code de cette page, pour l’ouvrir sur votre téléphone',
    loopback: 'Cette page est sur cet ordinateur ({host}) : un téléphone ne peut pas l’ouvrir.',
    addressLabel: 'Adresse de votre portefeuille',
    addressHint:
      'Les stablecoins vont à cette adresse. Votre application de portefeuille signe un message avec elle pour prouver qu’elle est à vous.',
    addressInvalid: 'Saisissez une adresse : 0x suivi de 40 caractères parmi 0–9 et a–f.',
    continue: 'Continuer',
    back: 'Retour',
    yourAddress: 'Votre adresse',
    signTitle: 'Signez ce message dans votre application de portefeuille',
    signHow:
      'Dans votre application de portefeuille, ouvrez « Signer un message », collez le message tel quel et signez-le avec cette adresse. Collez ensuite la signature ci-dessous. Signer ne coûte rien et n’envoie rien.',
    message: 'Message à signer',
    copyMessage: 'Copier le message',
    copied: 'Copié',
    signature: 'Signature',
    signatureHint: 'Elle commence par 0x.',
    signatureInvalid: 'Une signature est 0x suivi d’au moins 128 caractères parmi 0–9 et a–f.',
    signatureKey: 'Cela ressemble à une clé privée. Ne la communiquez jamais à personne : collez plutôt la signature.',
    signaturePhrase:
      'Cela ressemble à une phrase de récupération. Ne la communiquez jamais à personne : collez plutôt la signature.',
    waiting: 'En attente de la signature de votre application de portefeuille…',
    confirm: 'Confirmer l’achat',
    cancel: 'Annuler',
  },
  es: {
    openInApp: 'Abrir en tu app de billetera',
    walletApps: 'Apps de billetera',
    continueOnPhone: 'Continuar en el móvil',
    scanToContinue: 'Escanea el código con la cámara de tu móvil y abre la página en tu app de billetera.',
    qrLabel: 'Código QR de esta página, para abrirla en tu móvil',
    loopback: 'Esta página está en este ordenador ({host}): un móvil no puede abrirla.',
    addressLabel: 'Dirección de tu billetera',
    addressHint:
      'Las stablecoins van a esta dirección. Tu app de billetera firma un mensaje con ella para demostrar que es tuya.',
    addressInvalid: 'Introduce una dirección: 0x seguido de 40 caracteres de 0–9 y a–f.',
    continue: 'Continuar',
    back: 'Volver',
    yourAddress: 'Tu dirección',
    signTitle: 'Firma este mensaje en tu app de billetera',
    signHow:
      'En tu app de billetera, abre «Firmar mensaje», pega el mensaje tal cual y fírmalo con esta dirección. Después pega la firma abajo. Firmar no cuesta nada y no envía nada.',
    message: 'Mensaje que firmar',
    copyMessage: 'Copiar el mensaje',
    copied: 'Copiado',
    signature: 'Firma',
    signatureHint: 'Empieza por 0x.',
    signatureInvalid: 'Una firma es 0x seguido de al menos 128 caracteres de 0–9 y a–f.',
    signatureKey: 'Esto parece una clave privada. No la compartas nunca con nadie: pega la firma en su lugar.',
    signaturePhrase:
      'Esto parece una frase de recuperación. No la compartas nunca con nadie: pega la firma en su lugar.',
    waiting: 'Esperando la firma de tu app de billetera…',
    confirm: 'Confirmar la compra',
    cancel: 'Cancelar',
  },
  nl: {
    openInApp: 'Openen in je wallet-app',
    walletApps: 'Wallet-apps',
    continueOnPhone: 'Verder op je telefoon',
    scanToContinue: 'Scan de code met de camera van je telefoon en open de pagina daarna in je wallet-app.',
    qrLabel: 'QR-code van deze pagina, om haar op je telefoon te openen',
    loopback: 'Deze pagina staat op deze computer ({host}): een telefoon kan haar niet openen.',
    addressLabel: 'Adres van je wallet',
    addressHint:
      'De stablecoins gaan naar dit adres. Je wallet-app ondertekent er een bericht mee om te bewijzen dat het van jou is.',
    addressInvalid: 'Vul een adres in: 0x gevolgd door 40 tekens uit 0–9 en a–f.',
    continue: 'Verder',
    back: 'Terug',
    yourAddress: 'Je adres',
    signTitle: 'Onderteken dit bericht in je wallet-app',
    signHow:
      'Open in je wallet-app „Bericht ondertekenen”, plak het bericht precies zoals het is en onderteken het met dit adres. Plak daarna de handtekening hieronder. Ondertekenen kost niets en verstuurt niets.',
    message: 'Te ondertekenen bericht',
    copyMessage: 'Bericht kopiëren',
    copied: 'Gekopieerd',
    signature: 'Handtekening',
    signatureHint: 'Ze begint met 0x.',
    signatureInvalid: 'Een handtekening is 0x gevolgd door minstens 128 tekens uit 0–9 en a–f.',
    signatureKey: 'Dit lijkt op een privésleutel. Deel die nooit met iemand: plak in plaats daarvan de handtekening.',
    signaturePhrase: 'Dit lijkt op een herstelzin. Deel die nooit met iemand: plak in plaats daarvan de handtekening.',
    waiting: 'Wachten op de handtekening uit je wallet-app…',
    confirm: 'Aankoop bevestigen',
    cancel: 'Annuleren',
  },
};

export const outsideMessages = (locale: string): OutsideMessages => MESSAGES[languageOf(locale)];
