import { css, html, LitElement, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { Activity, ActivityTransfer } from '../messages.ts';
import { ask, messageOf } from './client.ts';
import { pageStyles } from './styles.ts';
import { UiLocale } from './ui-locale.ts';

declare global {
  interface HTMLElementTagNameMap {
    'kassa-activity-view': KassaActivityView;
  }
}

const STATE_WORDS = {
  confirmed: 'stateConfirmed',
  delayed: 'stateDelayed',
  arrived: 'stateArrived',
  refunded: 'stateRefunded',
} as const;

/** How often the chains are read again while the tab is open and a transfer is under way. */
const REFRESH_MS = 3_000;

/**
 * Kassa's account on every listed chain: its token balances, and its transfers with where each is
 * (the same states as the wallet panel's history). The last reading shows at once; the chains are
 * read again, and again every few seconds while a transfer is under way.
 */
@customElement('kassa-activity-view')
export class KassaActivityView extends LitElement {
  static override styles = [
    ...pageStyles,
    css`
      ul {
        list-style: none;
        margin: 0;
        padding: 0;
        display: grid;
        gap: 0.35rem;
      }
      li {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        gap: 0 0.5rem;
      }
      .state {
        font-weight: 600;
      }
      .arrived,
      .refunded {
        color: var(--_success);
      }
      .hash {
        grid-column: 1 / -1;
      }
    `,
  ];

  @state() private activity?: Activity | null;
  @state() private error?: string;
  private readonly locale = new UiLocale(this);
  private timer?: ReturnType<typeof setTimeout>;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.read(false).then(() => this.read(true));
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    clearTimeout(this.timer);
  }

  private async read(fresh: boolean): Promise<void> {
    clearTimeout(this.timer);
    try {
      this.activity = await ask({ kind: 'wallet.activity', fresh });
      this.error = undefined;
    } catch (error) {
      this.error = messageOf(error);
    }
    const underWay = this.activity?.transfers.some(
      (transfer) => transfer.state === 'confirmed' || transfer.state === 'delayed',
    );
    if (fresh && underWay && this.isConnected) this.timer = setTimeout(() => void this.read(true), REFRESH_MS);
  }

  private transfer(transfer: ActivityTransfer) {
    const { bridge } = this.locale;
    const name = (chainId: number) =>
      this.activity?.balances.find((balance) => balance.chainId === chainId)?.chain ?? String(chainId);
    const amount = new Intl.NumberFormat(this.locale.language, { maximumFractionDigits: 18 }).format(
      transfer.amount as Intl.StringNumericLiteral,
    );
    return html`<li data-hash=${transfer.hash} data-state=${transfer.state}>
      <span>${amount} ${transfer.symbol} · ${name(transfer.sourceChainId)} → ${name(transfer.destinationChainId)}</span>
      <span class="state ${transfer.state}">${bridge[STATE_WORDS[transfer.state]]}</span>
      <span class="mono muted hash" title=${transfer.hash}>${transfer.hash}</span>
    </li>`;
  }

  override render() {
    const { m } = this.locale;
    const activity = this.activity;
    if (!activity) return this.error ? html`<p class="error">${this.error}</p>` : nothing;
    const format = new Intl.NumberFormat(this.locale.language, { maximumFractionDigits: 6 });
    return html`
      <section aria-labelledby="balances-title">
        <h3 id="balances-title">${m.balances}</h3>
        <table id="balances">
          <tbody>
            ${activity.balances.map(
              (balance) =>
                html`<tr data-chain=${balance.chainId} data-symbol=${balance.symbol}>
                  <td>${balance.chain}</td>
                  <td>${balance.symbol}</td>
                  <td>
                    ${
                      balance.amount === null
                        ? html`<span class="muted">${m.balanceUnread}</span>`
                        : format.format(balance.amount as Intl.StringNumericLiteral)
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="activity-title">
        <h3 id="activity-title">${m.activity}</h3>
        ${
          activity.transfers.length
            ? html`<ul id="activity">
                ${activity.transfers.map((transfer) => this.transfer(transfer))}
              </ul>`
            : html`<p class="muted">${m.noActivity}</p>`
        }
      </section>
      ${this.error ? html`<p class="error">${this.error}</p>` : nothing}
    `;
  }
}
