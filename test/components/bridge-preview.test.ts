import { expect } from 'chai';
import { formatUnits, Transaction } from 'ethers';
import {
  bridgeStack,
  button,
  choose,
  connected,
  inside,
  installWallets,
  mountPanel,
  ONE,
  phase,
  reviewed,
  status,
  text,
  TWO,
  until,
  tamperingProxy,
  typeAmount,
  userInWallet,
  walletAction,
  walletCalls,
} from './bridge-panel.ts';
import { readChainFees, suggestedFees } from '../../lib/fee-policy.ts';
import { record } from './support.ts';

/** Intl's spaces (no-break, narrow no-break) as plain spaces, so the expectations stay readable. */
const plain = (value: string) => value.replace(/[\u00a0\u202f]/g, ' ');

/** What Kassa's fee rules (lib/fee-policy.ts) make the max fee per gas on a chain now. */
async function ownMaxFee(rpcUrl: string): Promise<bigint> {
  const call = async (method: string, params: unknown[]) =>
    (
      (await (
        await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        })
      ).json()) as { result: unknown }
    ).result;
  return suggestedFees(await readChainFees(call)).maxFeePerGas;
}

/** The preview's fields as the user reads them. */
function fields(element: HTMLElement): Record<string, string> {
  const found: Record<string, string> = {};
  for (const field of element.shadowRoot!.querySelectorAll<HTMLElement>('[part="preview"] [data-field]'))
    found[field.dataset.field!] = plain(field.textContent.replace(/\s+/g, ' ').trim());
  return found;
}

describe('<kassa-bridge>: the preview', () => {
  it('shows what the prepared transaction does, decoded from it: burn, mint, recipient, contract, method, chain, fee', async () => {
    const [wallet] = await installWallets([{ id: 'reader', account: 3 }]);
    const { proxy, chains } = await bridgeStack();
    const [one, two] = [chains.find((chain) => chain.chainId === ONE)!, chains.find((chain) => chain.chainId === TWO)!];
    const element = await connected(await mountPanel(), wallet!);
    await choose(element, 'token', 'eGBR');
    // What the proxy prepares for this request, decoded here on its own, to check the panel against.
    const prepared = fetch(`${proxy}/api/bridge/prepare`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        sourceAmount: '12.5',
        sourceToken: one.tokens.eGBR!.address,
        destinationToken: two.tokens.eGBR!.address,
        destinationChainId: TWO,
      }),
    }).then(async (response) => Transaction.from(((await response.json()) as { tx: string }).tx));
    await reviewed(element, '12.5');
    const tx = await prepared;
    // The fee is the panel's own from the chain (nothing is mined meanwhile), never the proxy's.
    const fee = formatUnits(tx.gasLimit * (await ownMaxFee(one.rpcUrl)), 18).replace(/\.0$/, '');
    const rounded = new Intl.NumberFormat('en', { maximumSignificantDigits: 4 }).format(
      fee as Intl.StringNumericLiteral,
    );
    expect(fields(element)).to.deep.equal({
      burn: '12.5 eGBR on Kassa Local One',
      mint: '12.5 eGBR on Kassa Local Two',
      recipient: `${wallet!.address} (your account)`,
      contract: `${tx.to} (eGBR token)`,
      method: 'reforge(uint256,uint256,address)',
      network: 'Kassa Local One (chain 31337)',
      fee: `${rounded} ETH`,
    });
    // The fee to 4 significant digits, the exact figure on hover.
    expect(rounded.replace(/^0\.0*/, '').replace('.', '').length).to.be.at.most(4);
    expect(inside(element, '[data-field="fee"]')!.title).to.equal(`${fee} ETH`);
    expect(tx.to).to.equal(one.tokens.eGBR!.address);
    expect(text(element, 'preview')).to.match(/^What you are about to sign/);
    expect(button(element, 'Confirm in wallet').getAttribute('aria-disabled')).to.equal('false');
    expect(button(element, 'Back').getAttribute('aria-disabled')).to.equal('false');
  });

  it('says the wallet will be asked to switch when it is on another chain, and follows the wallet’s network live', async () => {
    const [wallet] = await installWallets([{ id: 'elsewhere', account: 3, chainId: TWO }]);
    const element = await connected(await mountPanel(), wallet!);
    await choose(element, 'source', ONE);
    await reviewed(element, '1');
    const note = () => inside(element, '[data-field="switch"]')?.textContent?.trim();
    expect(note()).to.equal('Your wallet will be asked to switch to Kassa Local One first.');
    await userInWallet('elsewhere', 'move-to', ONE);
    await until(() => note() === undefined, 'the note gone once the wallet is on the chain');
    expect(element.phase).to.equal('review');
  });

  it('the fee shown is the one sent: the panel’s own from the chain, never the proxy’s; an inflated gas limit is refused', async () => {
    const [wallet] = await installWallets([{ id: 'fee-payer', account: 6 }]);
    const element = await connected(await mountPanel({ proxy: await tamperingProxy('fee') }), wallet!);
    await reviewed(element, '2');
    const shown = inside(element, '[data-field="fee"]')!.title;
    const onChain = (await bridgeStack()).chains.find((chain) => chain.chainId === ONE)!;
    const own = await ownMaxFee(onChain.rpcUrl);
    button(element, 'Confirm in wallet').click();
    await phase(element, 'arrived');
    const sent = (
      await walletAction<Array<{ method: string; params: Array<Record<string, string>> }>>('fee-payer', 'calls')
    )
      .filter((call) => call.method === 'eth_sendTransaction')
      .map((call) => call.params[0]!);
    expect(sent).to.have.length(1);
    // A million gwei per gas from the proxy: neither shown nor sent.
    expect(BigInt(sent[0]!.maxFeePerGas!)).to.equal(own);
    expect(BigInt(sent[0]!.maxFeePerGas!) < 10n ** 15n, 'not the proxy’s million gwei').to.equal(true);
    expect(BigInt(sent[0]!.maxPriorityFeePerGas!) <= BigInt(sent[0]!.maxFeePerGas!)).to.equal(true);
    expect(shown).to.equal(`${formatUnits(BigInt(sent[0]!.gas!) * BigInt(sent[0]!.maxFeePerGas!), 18)} ETH`);
    element.remove();

    const [other] = await installWallets([{ id: 'gas-wary', account: 6 }]);
    const inflated = await connected(await mountPanel({ proxy: await tamperingProxy('gas') }), other!);
    const errors = record(inflated, 'kassa-bridge-error');
    await typeAmount(inflated, '2');
    button(inflated, 'Review transfer').click();
    await until(() => errors.length > 0, 'the refusal');
    expect(inflated.phase).to.equal('ready');
    expect(errors[0]!.event.detail.kind).to.equal('preview-refused');
    expect(errors[0]!.event.detail.message).to.match(/gas limit \(\d+\) is far above what the transfer needs/);
    expect(await walletCalls('gas-wary')).to.not.include('eth_sendTransaction');
  });

  it('Back returns to the form with the choices kept; nothing was signed', async () => {
    const [wallet] = await installWallets([{ id: 'undecided', account: 3 }]);
    const element = await connected(await mountPanel(), wallet!);
    await choose(element, 'token', 'eSGD');
    await reviewed(element, '4.75');
    button(element, 'Back').click();
    await phase(element, 'ready');
    expect(inside<HTMLSelectElement>(element, '#token')!.value).to.equal('eSGD');
    expect(inside<HTMLInputElement>(element, '#amount')!.value).to.equal('4.75');
  });
});

/** What the user reads in each language: the form's labels, the balance, the preview, and a refusal in the wallet. */
const LANGUAGES = {
  en: {
    labels: ['From', 'To', 'Token', 'Amount'],
    review: 'Review transfer',
    balance: 'Balance: 1,000,000 eUSD',
    burn: '1,234.5 eUSD on Kassa Local One',
    confirm: 'Confirm in wallet',
    rejected: 'You rejected the request in your wallet. Nothing was sent.',
  },
  de: {
    labels: ['Von', 'Nach', 'Token', 'Betrag'],
    review: 'Übertragung prüfen',
    balance: 'Guthaben: 1.000.000 eUSD',
    burn: '1.234,5 eUSD auf Kassa Local One',
    confirm: 'Im Wallet bestätigen',
    rejected: 'Sie haben die Anfrage in Ihrem Wallet abgelehnt. Es wurde nichts gesendet.',
  },
  fr: {
    labels: ['De', 'Vers', 'Jeton', 'Montant'],
    review: 'Vérifier le transfert',
    balance: 'Solde : 1 000 000 eUSD',
    burn: '1 234,5 eUSD sur Kassa Local One',
    confirm: 'Confirmer dans le portefeuille',
    rejected: 'Vous avez refusé la demande dans votre portefeuille. Rien n’a été envoyé.',
  },
  es: {
    labels: ['Desde', 'Hacia', 'Token', 'Importe'],
    review: 'Revisar la transferencia',
    balance: 'Saldo: 1.000.000 eUSD',
    burn: '1234,5 eUSD en Kassa Local One',
    confirm: 'Confirmar en la billetera',
    rejected: 'Has rechazado la solicitud en tu billetera. No se ha enviado nada.',
  },
  nl: {
    labels: ['Van', 'Naar', 'Token', 'Bedrag'],
    review: 'Overboeking controleren',
    balance: 'Saldo: 1.000.000 eUSD',
    burn: '1.234,5 eUSD op Kassa Local One',
    confirm: 'Bevestigen in wallet',
    rejected: 'Je hebt het verzoek in je wallet geweigerd. Er is niets verstuurd.',
  },
};

describe('<kassa-bridge>: languages', () => {
  for (const [locale, expected] of Object.entries(LANGUAGES)) {
    it(`${locale}: the form, the balance, the amount typed the locale's way, the preview and a refusal`, async () => {
      const [wallet] = await installWallets([{ id: `speaker-${locale}`, account: 4, rejectSend: true }]);
      const element = await mountPanel({ locale });
      await phase(element, 'connect');
      button(element, wallet!.name).click();
      await phase(element, 'ready');
      await until(
        () => plain(text(element, 'balance')) === expected.balance,
        () => `${expected.balance} (now ${text(element, 'balance')})`,
      );
      expect([...element.shadowRoot!.querySelectorAll('label')].map((label) => label.textContent.trim())).to.deep.equal(
        expected.labels,
      );
      const input = inside<HTMLInputElement>(element, '#amount')!;
      input.value = locale === 'en' ? '1234.5' : '1234,5';
      input.dispatchEvent(new Event('input'));
      button(element, expected.review).click();
      await phase(element, 'review');
      expect(fields(element).burn).to.equal(expected.burn);
      const errors = record(element, 'kassa-bridge-error');
      button(element, expected.confirm).click();
      await status(element, expected.rejected);
      expect(errors[0]!.event.detail.message, 'the event speaks to developers, in English').to.match(
        /denied|rejected/i,
      );
    });
  }

  it('a language Kassa does not speak: English words, the locale’s number format', async () => {
    const [wallet] = await installWallets([{ id: 'portuguese', account: 4 }]);
    const element = await mountPanel({ locale: 'pt-PT' });
    await connected(element, wallet!);
    expect(plain(text(element, 'balance'))).to.equal('Balance: 1 000 000 eUSD');
  });

  it('follows <html lang> when the page switches language', async () => {
    const [wallet] = await installWallets([{ id: 'switching-language', account: 4 }]);
    const element = await connected(await mountPanel(), wallet!);
    document.documentElement.lang = 'nl';
    try {
      await until(() => text(element, 'button') === 'Overboeking controleren', 'Dutch');
    } finally {
      document.documentElement.lang = 'en';
    }
  });
});
