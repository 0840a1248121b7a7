import { expect } from 'chai';
import { parseUnits } from 'ethers';
import { record } from './support.ts';
import {
  accessibleName,
  balanceOf,
  bridgeStack,
  button,
  chainAction,
  choose,
  connected,
  focused,
  inside,
  installWallets,
  mountPanel,
  ONE,
  part,
  phase,
  reviewed,
  status,
  tamperingProxy,
  text,
  TWO,
  typeAmount,
  until,
  userInWallet,
  walletAction,
  walletCalls,
  watchingPendingReads,
  withoutAutomine,
} from './bridge-panel.ts';

/** Every state of <kassa-bridge>, reached for real: real proxy, emulator, anvil chains, and test wallets that sign in the test process. */
describe('<kassa-bridge>: states', () => {
  describe('wallets', () => {
    it('lists every announced wallet with its name and icon, and connects the one chosen', async () => {
      const [alpha, beta] = await installWallets([
        { id: 'alpha', account: 1 },
        { id: 'beta', account: 2, chainId: TWO },
      ]);
      const element = await mountPanel();
      await phase(element, 'connect');
      expect(text(element, 'status')).to.equal('Connect a wallet to move stablecoins.');
      const wallets = [...element.shadowRoot!.querySelectorAll('[part="wallet"]')];
      expect(wallets.map((wallet) => wallet.textContent.trim())).to.deep.equal(['Alpha Wallet', 'Beta Wallet']);
      expect(wallets.map((wallet) => wallet.querySelector('img')!.getAttribute('src'))).to.deep.equal([
        alpha!.icon,
        beta!.icon,
      ]);
      expect(wallets.every((wallet) => wallet.querySelector('img')!.getAttribute('alt') === '')).to.equal(true);
      await connected(element, beta!);
      expect(await walletCalls('alpha')).to.deep.equal([]);
      expect(accessibleName(part(element, 'account')!)).to.equal(
        `Beta Wallet ${beta!.address.slice(0, 6)}…${beta!.address.slice(-4)} Copy on Kassa Local Two Disconnect`,
      );
      // The address's copy button copies the whole address.
      expect(button(element, 'Copy address').dataset.copy).to.equal(beta!.address);
      // The wallet's chain is the source by default.
      expect(inside<HTMLSelectElement>(element, '#source')!.value).to.equal(String(TWO));
      expect(inside<HTMLSelectElement>(element, '#destination')!.value).to.equal(String(ONE));
    });

    it('shows an icon only as an image of a data: URI; anything else is not shown', async () => {
      await installWallets([
        { id: 'remote', account: 1, icon: 'https://wallet.example/icon.png' },
        { id: 'markup', account: 1, icon: '<svg onload="alert(1)"></svg>' },
        { id: 'script', account: 1, icon: 'data:text/html,<script>alert(1)</script>' },
      ]);
      const element = await mountPanel();
      await phase(element, 'connect');
      await until(() => element.shadowRoot!.querySelectorAll('[part="wallet"]').length === 3, 'three wallets');
      expect(element.shadowRoot!.querySelectorAll('[part="wallet"] img').length).to.equal(0);
      expect(
        [...element.shadowRoot!.querySelectorAll('[part="wallet"] .initial')].map((initial) => initial.textContent),
      ).to.deep.equal(['R', 'M', 'S']);
      expect(element.shadowRoot!.querySelector('svg') === null, 'no SVG markup').to.equal(true);
    });

    it('without EIP-6963, window.ethereum is offered as the browser wallet', async () => {
      const [legacy] = await installWallets([{ id: 'legacy', account: 1 }], {
        windowEthereum: 'legacy',
        announce: false,
      });
      const element = await mountPanel();
      await phase(element, 'connect');
      await connected(element, { ...legacy!, name: 'Browser wallet' });
      expect(accessibleName(part(element, 'account')!)).to.match(
        /^Browser wallet 0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4} Copy on Kassa Local One Disconnect$/,
      );
    });

    it('no wallet at all: says so, once the browser has had time to announce one', async () => {
      const element = await mountPanel();
      await phase(element, 'connect');
      await status(
        element,
        'No wallet found in this browser. Install a wallet extension, or open this page in your wallet’s browser.',
      );
    });

    it('a declined connection says so and the wallets stay offered', async () => {
      const [shy] = await installWallets([{ id: 'shy', account: 1, rejectConnect: true }]);
      const element = await mountPanel();
      const errors = record(element, 'kassa-bridge-error');
      await phase(element, 'connect');
      button(element, shy!.name).click();
      await status(element, 'You declined the connection in your wallet.');
      expect(element.phase).to.equal('connect');
      expect(errors.map(({ event }) => [event.detail.kind, event.detail.stage, event.detail.code])).to.deep.equal([
        ['wallet-rejected', 'connect', 4001],
      ]);
    });

    it('follows the wallet: another account, another network, disconnection', async () => {
      const [wallet] = await installWallets([{ id: 'moving', account: 1 }]);
      const element = await connected(await mountPanel(), wallet!);
      const { chains } = await bridgeStack();
      await userInWallet('moving', 'move-to', TWO);
      await until(() => /on Kassa Local Two/.test(text(element, 'account')), 'the new network');
      await userInWallet('moving', 'use-account', 3);
      const third = await balanceOf(ONE, chains[0]!.tokens.eUSD!.address, '0x90F79bf6EB2c4f870365E785982E1f101E93b906');
      await until(() => text(element, 'account').includes('0x90F7…b906'), 'the new account');
      await until(
        () => text(element, 'balance') === `Balance: ${Number(third / 10n ** 18n).toLocaleString('en')} eUSD`,
        'the new account’s balance',
      );
      registry().moving!.emit('accountsChanged', []);
      await phase(element, 'connect');
      expect(part(element, 'account') === null, 'no account bar').to.equal(true);
    });

    it('a wallet whose chains go down (disconnect 4900) stays connected: said, and the transfer goes once they are back (connect)', async () => {
      const [wallet] = await installWallets([{ id: 'offline', account: 1 }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1');
      const unreachable = 'Your wallet cannot reach its network. Try again once it is back.';
      await userInWallet('offline', 'offline');
      await element.updateComplete;
      expect(element.phase, 'the session stays').to.equal('review');
      expect(part(element, 'account'), 'the account bar').to.not.equal(null);
      expect(text(element, 'status')).to.equal(unreachable);
      // Confirming meanwhile: the wallet answers 4900, said the same way; still connected, nothing sent.
      button(element, 'Confirm in wallet').click();
      await phase(element, 'ready');
      expect(text(element, 'status')).to.equal(unreachable);
      expect(part(element, 'account'), 'the account bar').to.not.equal(null);
      // Back: the session goes on.
      await userInWallet('offline', 'online');
      await element.updateComplete;
      expect(text(element, 'status')).to.not.equal(unreachable);
      button(element, 'Review transfer').click();
      await phase(element, 'review');
      // The event, not the phase: on a fast chain the phase is past "submitted" before a poll sees it.
      const submitted = record(element, 'kassa-bridge-submitted');
      button(element, 'Confirm in wallet').click();
      await until(() => submitted.length, 'the transfer sent (kassa-bridge-submitted)');
    });
  });

  describe('the form', () => {
    it('shows the balance read from the chain, checks the amount against the token’s decimals and the balance, and "Max" fills it all', async () => {
      const [wallet] = await installWallets([{ id: 'former', account: 1 }]);
      const element = await connected(await mountPanel(), wallet!);
      const { chains } = await bridgeStack();
      const balance = await balanceOf(ONE, chains[0]!.tokens.eUSD!.address, wallet!.address);
      const whole = balance / 10n ** 18n;
      expect(text(element, 'balance')).to.match(/^Balance: [\d,.]+ eUSD$/);
      expect(text(element, 'balance').replace(/,/g, '')).to.contain(String(whole));
      const problem = () => inside(element, '#amount-problem')?.textContent?.trim() ?? '';
      const input = inside<HTMLInputElement>(element, '#amount')!;
      for (const [typed, expected] of [
        ['abc', 'Enter an amount such as 12.5.'],
        ['1,5', 'Enter an amount such as 12.5.'],
        ['0', 'Enter an amount greater than zero.'],
        ['0.0000000000000000001', 'eUSD has at most 18 decimal places.'],
        ['99999999', /^Not enough eUSD: your balance is [\d,.]+ eUSD\.$/],
        ['1.000000000000000001', ''],
        ['.5', ''],
      ] as const) {
        await typeAmount(element, typed);
        if (expected instanceof RegExp) expect(problem()).to.match(expected);
        else expect(problem(), typed).to.equal(expected);
        expect(input.getAttribute('aria-invalid'), typed).to.equal(expected ? 'true' : 'false');
        if (expected) expect(input.getAttribute('aria-describedby')).to.equal('amount-problem amount-balance');
      }
      part(element, 'max')!.click();
      await element.updateComplete;
      expect(input.value).to.equal(
        `${whole}${balance % 10n ** 18n ? `.${(balance % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '')}` : ''}`,
      );
      expect(problem()).to.equal('');
    });

    it('too much is refused before anything is prepared, with an event', async () => {
      const [wallet] = await installWallets([{ id: 'greedy', account: 1 }]);
      const element = await connected(await mountPanel(), wallet!);
      const errors = record(element, 'kassa-bridge-error');
      await typeAmount(element, '5000000');
      button(element, 'Review transfer').click();
      await until(() => errors.length, 'the error event');
      expect(element.phase).to.equal('ready');
      expect(errors[0]!.event.detail).to.include({ kind: 'insufficient-balance', stage: 'balance' });
      await until(() => focused(element, inside(element, '#amount')), 'focus on the amount');
    });

    it('chains and tokens: choosing the other side’s chain swaps them, and the tokens are those both chains carry', async () => {
      const [wallet] = await installWallets([{ id: 'chooser', account: 1 }]);
      const element = await connected(await mountPanel(), wallet!);
      const value = (id: string) => inside<HTMLSelectElement>(element, `#${id}`)!.value;
      expect([value('source'), value('destination')]).to.deep.equal([String(ONE), String(TWO)]);
      await choose(element, 'source', TWO);
      expect([value('source'), value('destination')]).to.deep.equal([String(TWO), String(ONE)]);
      button(element, 'Swap networks').click();
      await element.updateComplete;
      expect([value('source'), value('destination')]).to.deep.equal([String(ONE), String(TWO)]);
      expect([...inside<HTMLSelectElement>(element, '#token')!.options].map((option) => option.value)).to.deep.equal([
        'eUSD',
        'eEUR',
        'eGBR',
        'eSGD',
      ]);
      await choose(element, 'token', 'eSGD');
      await until(() => /eSGD$/.test(text(element, 'balance')), 'the eSGD balance');
    });
  });

  describe('sending and following', () => {
    it('submitted, mined, arrived: the events in order, the steps, the hash, the new balance; and a double click sends once', async () => {
      const [wallet] = await installWallets([{ id: 'sender', account: 5 }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1.5');
      const events = record(
        element,
        'kassa-bridge-submitted',
        'kassa-bridge-mined',
        'kassa-bridge-arrived',
        'kassa-bridge-error',
      );
      const confirm = button(element, 'Confirm in wallet');
      confirm.click();
      confirm.click();
      await element.updateComplete;
      expect(confirm.getAttribute('aria-disabled')).to.equal('true');
      await phase(element, 'arrived');
      expect((await walletCalls('sender')).filter((method) => method === 'eth_sendTransaction')).to.have.length(1);
      expect(events.map(({ event }) => event.type)).to.deep.equal([
        'kassa-bridge-submitted',
        'kassa-bridge-mined',
        'kassa-bridge-arrived',
      ]);
      for (const { event, origin } of events) {
        expect(event.bubbles && event.composed, event.type).to.equal(true);
        expect(origin === element, event.type).to.equal(true);
      }
      const hash = events[0]!.event.detail.hash;
      expect(text(element, 'hash')).to.equal(hash);
      expect(
        [...part(element, 'steps')!.querySelectorAll('li')].map((step) => [
          step.dataset.state,
          step.textContent.replace(/\s+/g, ' ').trim(),
        ]),
      ).to.deep.equal([
        ['done', 'Sent to Kassa Local One: done'],
        ['done', 'Confirmed on Kassa Local One: done'],
        ['done', 'Arrived on Kassa Local Two: done'],
      ]);
      expect(text(element, 'status')).to.equal('1.5 eUSD arrived on Kassa Local Two.');
      expect(keptTransfers(), 'nothing kept once arrived').to.equal(0);
      button(element, 'New transfer').click();
      await phase(element, 'ready');
      expect(inside<HTMLInputElement>(element, '#amount')!.value).to.equal('');
    });

    it('while under way the button stays off, and the steps show where it is', async () => {
      const [wallet] = await installWallets([{ id: 'holder', account: 6, send: 'hold' }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1');
      button(element, 'Confirm in wallet').click();
      await phase(element, 'submitted');
      expect(text(element, 'status')).to.equal('Sent. Waiting for Kassa Local One to confirm it…');
      const busy = button(element, 'Transfer under way…');
      expect(busy.getAttribute('aria-disabled')).to.equal('true');
      expect([...part(element, 'steps')!.querySelectorAll('li')].map((step) => step.dataset.state)).to.deep.equal([
        'done',
        'current',
        'pending',
      ]);
      expect(part(element, 'steps')!.querySelector('[aria-current="step"]')!.textContent).to.contain(
        'Confirmed on Kassa Local One',
      );
      await walletAction('holder', 'release');
      await phase(element, 'arrived');
    });

    it('a transfer under way survives the panel being taken out of the page and put back', async () => {
      const [wallet] = await installWallets([{ id: 'mover', account: 6, send: 'hold' }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1');
      button(element, 'Confirm in wallet').click();
      await phase(element, 'submitted');
      const hash = text(element, 'hash');
      element.remove();
      const again = await mountPanel();
      await phase(again, 'submitted');
      expect(text(again, 'hash')).to.equal(hash);
      await walletAction('mover', 'release');
      await phase(again, 'arrived');
    });

    it('reverted (mined with status 0): its own message, and nothing was moved', async () => {
      const [wallet] = await installWallets([{ id: 'reverter', account: 7, gasLimit: '30000' }]);
      const { chains } = await bridgeStack();
      const before = await balanceOf(ONE, chains[0]!.tokens.eUSD!.address, wallet!.address);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '2');
      const errors = record(element, 'kassa-bridge-error');
      button(element, 'Confirm in wallet').click();
      await phase(element, 'failed');
      expect(text(element, 'status')).to.equal(
        'The transfer failed on Kassa Local One: the transaction was reverted. No tokens were moved; only the network fee was spent.',
      );
      expect(errors.map(({ event }) => [event.detail.kind, event.detail.stage])).to.deep.equal([['reverted', 'mined']]);
      expect(errors[0]!.event.detail.hash).to.match(/^0x[0-9a-f]{64}$/);
      expect([...part(element, 'steps')!.querySelectorAll('li')].map((step) => step.dataset.state)).to.deep.equal([
        'done',
        'failed',
        'pending',
      ]);
      expect(
        (await balanceOf(ONE, chains[0]!.tokens.eUSD!.address, wallet!.address)) === before,
        'the balance is unchanged',
      ).to.equal(true);
      button(element, 'Try again').click();
      await phase(element, 'ready');
      expect(inside<HTMLInputElement>(element, '#amount')!.value, 'the amount is kept').to.equal('2');
    });

    it('dropped: a transaction the chain never sees is given up after the time allowed', async () => {
      const [wallet] = await installWallets([{ id: 'dropper', account: 7, send: 'drop' }]);
      const element = await connected(await mountPanel(), wallet!);
      element.timeouts = { dropped: 1_500 };
      await reviewed(element, '1');
      button(element, 'Confirm in wallet').click();
      await phase(element, 'failed');
      expect(text(element, 'status')).to.equal(
        'Kassa Local One dropped the transaction before confirming it. No tokens were moved; you can try again.',
      );
    });

    it('dropped: a pending transaction the node forgets', async () => {
      const [wallet] = await installWallets([{ id: 'forgotten', account: 8 }]);
      const element = await connected(await mountPanel(), wallet!);
      element.timeouts = { dropped: 1_500 };
      await reviewed(element, '1');
      const submitted = record(element, 'kassa-bridge-submitted');
      await watchingPendingReads((sawPending) =>
        withoutAutomine(ONE, async () => {
          button(element, 'Confirm in wallet').click();
          await until(() => submitted.length, 'the transaction in the pool');
          const { hash } = submitted[0]!.event.detail;
          await until(() => sawPending(hash), 'the panel to see it pending');
          await chainAction({ chainId: ONE, action: 'drop', hash });
          await phase(element, 'failed');
        }),
      );
      expect(text(element, 'status')).to.match(/dropped the transaction/);
    });

    it('replaced: another transaction took its nonce (a wallet’s "cancel")', async () => {
      const [wallet] = await installWallets([{ id: 'canceller', account: 8 }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1');
      const submitted = record(element, 'kassa-bridge-submitted');
      await watchingPendingReads((sawPending) =>
        withoutAutomine(ONE, async () => {
          button(element, 'Confirm in wallet').click();
          await until(() => submitted.length, 'the transaction in the pool');
          // Seen pending, the panel knows its nonce: another transaction taking it is a replacement.
          await until(() => sawPending(submitted[0]!.event.detail.hash), 'the panel to see it pending');
          await walletAction('canceller', 'replace');
          await chainAction({ chainId: ONE, action: 'mine' });
          await phase(element, 'failed');
        }),
      );
      expect(text(element, 'status')).to.equal(
        'Your wallet replaced the transaction with another one, so this transfer did not happen. Check the activity in your wallet.',
      );
    });

    it('sped up: the same transfer re-sent with higher fees is followed under its new hash, to arrival', async () => {
      const [wallet] = await installWallets([{ id: 'hasty', account: 9, send: 'speed-up' }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1');
      const events = record(element, 'kassa-bridge-submitted', 'kassa-bridge-arrived');
      button(element, 'Confirm in wallet').click();
      await phase(element, 'arrived');
      const [submitted, arrived] = events.map(({ event }) => event.detail);
      expect(arrived.hash).to.not.equal(submitted.hash);
      expect(text(element, 'hash')).to.equal(arrived.hash);
    });

    it('not mined in the time allowed: says so, keeps the transfer, and "Keep waiting" follows it to arrival', async () => {
      const [wallet] = await installWallets([{ id: 'patient', account: 9, send: 'hold' }]);
      const element = await connected(await mountPanel(), wallet!);
      element.timeouts = { mined: 2_000 };
      await reviewed(element, '1');
      const errors = record(element, 'kassa-bridge-error');
      button(element, 'Confirm in wallet').click();
      await phase(element, 'failed');
      expect(text(element, 'status')).to.equal(
        'Kassa Local One has not confirmed the transaction after 2 seconds. It may still go through.',
      );
      expect(errors.map(({ event }) => [event.detail.kind, event.detail.stage])).to.deep.equal([['timeout', 'mined']]);
      expect(keptTransfers(), 'the transfer is kept').to.equal(1);
      element.timeouts = {};
      button(element, 'Keep waiting').click();
      await phase(element, 'submitted');
      await walletAction('patient', 'release');
      await phase(element, 'arrived');
    });

    it('not enough gas money: refused before the wallet is asked', async () => {
      const [wallet] = await installWallets([{ id: 'penniless', account: 15 }]);
      const { chains } = await bridgeStack();
      await chainAction({
        chainId: ONE,
        action: 'give',
        token: chains[0]!.tokens.eUSD!.address,
        account: wallet!.address,
        units: parseUnits('10', 18).toString(),
      });
      const element = await reviewed(await connected(await mountPanel(), wallet!), '10');
      const errors = record(element, 'kassa-bridge-error');
      button(element, 'Confirm in wallet').click();
      await status(
        element,
        /^Not enough ETH on Kassa Local One to pay the network fee \(up to 0\.0\d+ ETH\)\. Nothing was sent\.$/,
      );
      expect(element.phase).to.equal('review');
      expect(errors[0]!.event.detail.kind).to.equal('insufficient-gas');
      expect(await walletCalls('penniless')).to.not.include('eth_sendTransaction');
    });

    it('the account changed in the wallet during review: back to the form, to review again', async () => {
      const [wallet] = await installWallets([{ id: 'switcher', account: 1 }]);
      const element = await reviewed(await connected(await mountPanel(), wallet!), '1');
      await userInWallet('switcher', 'use-account', 2);
      await phase(element, 'ready');
      expect(text(element, 'status')).to.equal('Your wallet switched accounts. Review the transfer again.');
    });

    it('the wallet refuses to switch: nothing is sent, and the preview stays', async () => {
      const [wallet] = await installWallets([{ id: 'stubborn', account: 1, chainId: TWO, rejectSwitch: true }]);
      const element = await connected(await mountPanel(), wallet!);
      await choose(element, 'source', ONE);
      await reviewed(element, '1');
      button(element, 'Confirm in wallet').click();
      await status(element, 'You rejected the request in your wallet. Nothing was sent.');
      expect(element.phase).to.equal('review');
      expect(await walletCalls('stubborn')).to.not.include('eth_sendTransaction');
      button(element, 'Back').click();
      await phase(element, 'ready');
      await until(() => focused(element, part(element, 'button')), 'focus on the main button');
    });
  });

  describe('the proxy', () => {
    it('unreachable: says so, with "Try again"', async () => {
      const element = await mountPanel({ proxy: 'http://127.0.0.1:9' });
      const errors = record(element, 'kassa-bridge-error');
      await phase(element, 'error');
      expect(text(element, 'status')).to.equal(
        "We can't reach the transfer service. Check your connection and try again.",
      );
      expect(button(element, 'Try again').getAttribute('aria-disabled')).to.equal('false');
      expect(errors[0]!.event.detail).to.include({ kind: 'unreachable', stage: 'chains', status: 0 });
    });

    it('no chains on the network asked for (main, on the emulator)', async () => {
      const element = await mountPanel({ network: 'main' });
      const errors = record(element, 'kassa-bridge-error');
      await phase(element, 'error');
      expect(text(element, 'status')).to.equal('No networks are available for transfers right now.');
      expect(errors[0]!.event.detail.kind).to.equal('no-chains');
    });

    it('misconfigured: a proxy that is not a URL, a network that does not exist', async () => {
      for (const attributes of [{ proxy: 'not a url' }, { network: 'moon' }] as Array<Record<string, string>>) {
        const element = await mountPanel(attributes);
        await phase(element, 'error');
        expect(text(element, 'status')).to.equal('This transfer panel is not set up correctly.');
        element.remove();
      }
    });

    it('a chain whose RPC cannot be reached: the balance says so, and reviewing says which chain', async () => {
      const [wallet] = await installWallets([{ id: 'offline', account: 1 }]);
      const element = await mountPanel({ proxy: await tamperingProxy('dead-rpc') });
      const errors = record(element, 'kassa-bridge-error');
      await phase(element, 'connect');
      button(element, wallet!.name).click();
      await phase(element, 'ready');
      await until(() => text(element, 'balance') === 'Your balance could not be read.', 'the balance unavailable');
      expect(errors.map(({ event }) => [event.detail.kind, event.detail.stage])).to.deep.equal([['rpc', 'balance']]);
      expect(part(element, 'max')!.hasAttribute('disabled'), 'no "Max" without a balance').to.equal(true);
      await typeAmount(element, '1');
      button(element, 'Review transfer').click();
      await status(element, 'Kassa Local One cannot be reached right now. Check your connection and try again.');
      expect(element.phase).to.equal('ready');
      expect(await walletCalls('offline')).to.not.include('eth_sendTransaction');
    });

    it('a proxy that alters the prepared transaction is caught before the wallet sees it', async () => {
      for (const tampering of ['amount', 'method'] as const) {
        const [wallet] = await installWallets([{ id: `wary-${tampering}`, account: 1 }]);
        const element = await connected(await mountPanel({ proxy: await tamperingProxy(tampering) }), wallet!);
        const errors = record(element, 'kassa-bridge-error');
        await typeAmount(element, '3');
        button(element, 'Review transfer').click();
        await status(
          element,
          'Kassa stopped: the prepared transaction is not the transfer you asked for, so it was not sent to your wallet.',
        );
        expect(element.phase).to.equal('ready');
        expect(errors.map(({ event }) => event.detail.kind)).to.deep.equal(['preview-refused']);
        expect(errors[0]!.event.detail.message).to.match(
          tampering === 'amount' ? /amount is not the one asked for/ : /calls transfer, not reforge/,
        );
        expect(await walletCalls(`wary-${tampering}`)).to.not.include('eth_sendTransaction');
        element.remove();
      }
    });
  });
});

/** Transfers the panel keeps in sessionStorage (to resume after a reload). */
const keptTransfers = () => Object.keys(sessionStorage).filter((key) => key.startsWith('kassa-bridge:')).length;

function registry() {
  return (window as unknown as { kassaTestWallets: Record<string, { emit(event: string, data: unknown): void }> })
    .kassaTestWallets;
}
