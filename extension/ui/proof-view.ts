import { css, html, nothing, type TemplateResult } from 'lit';
import { fill, formatMoney, type BridgeMessages } from '../../widget/ui.ts';
import type { ApprovalView } from '../messages.ts';
import { shortHex, tokenAmount } from './purchase-words.ts';
import { relativeTime } from './relative-time.ts';
import type { ExtensionMessages } from './ui-locale.ts';

type ProofView = Extract<ApprovalView, { kind: 'proof' }>;

/**
 * A Kassa purchase's ownership proof in the approval window, in words: the site that asks (its own
 * origin, the only one Kassa signs such a message for), what is bought, on which chain, for how much
 * and to which address, when the request expires; then the message exactly as it is signed.
 * `now` moves on while the window is open: once the message expires, it says so and Approve stays off.
 */
export function proofView(
  view: ProofView,
  words: { m: ExtensionMessages; bridge: BridgeMessages; language: string },
  now: number,
  actions: (expired: boolean) => TemplateResult,
): TemplateResult {
  const { m, bridge, language } = words;
  const { statement, message, chain } = view;
  const money = (amount: string) => formatMoney(amount, statement.currencyCode, language);
  const hasFee = !/^0+(?:\.0+)?$/.test(statement.fee);
  const purchase = fill(hasFee ? m.proofPurchaseFee : m.proofPurchase, {
    tokens: tokenAmount(statement.tokens, statement.symbol, language),
    chain: chain.name,
    payment: money(statement.payment),
    fee: money(statement.fee),
    address: shortHex(view.from),
  });
  // The site in bold within the sentence, wherever the language puts it.
  const [before, after = ''] = m.proofAsks.split('{site}');
  const expiresAt = Date.parse(message.expirationTime);
  const expired = now >= expiresAt;
  const time = new Date(expiresAt).toLocaleTimeString(language, { hour: '2-digit', minute: '2-digit' });
  return html`
    <h1>${m.proofTitle}</h1>
    <p id="proof-asks">${before}<strong class="origin">${message.domain}</strong>${after}</p>
    <p class="purchase" data-field="purchase">${purchase}</p>
    <dl>
      <dt>${m.proofSite}</dt>
      <dd id="origin"><bdi>${view.origin}</bdi></dd>
      <dt>${bridge.network}</dt>
      <dd data-field="chain">${fill(bridge.chainNumber, { chain: chain.name, chainId: String(chain.chainId) })}</dd>
      <dt>${m.proofAddress}</dt>
      <dd class="mono" data-field="address">${view.from}</dd>
      ${
        hasFee
          ? html`<dt>${m.proofFee}</dt>
              <dd data-field="fee">${money(statement.fee)}</dd>`
          : nothing
      }
      <dt>${m.proofExpires}</dt>
      <dd data-field="expires">
        ${expired ? m.proofExpiredShort : fill(m.proofExpiresAt, { time, relative: relativeTime(expiresAt - now, language) })}
      </dd>
    </dl>
    <p class="muted">${m.proofNote}</p>
    ${expired ? html`<p class="warning" role="alert" data-field="expired">${m.proofExpired}</p>` : nothing}
    <details>
      <summary>${m.proofMessage}</summary>
      <pre class="mono" tabindex="0" role="region" aria-label=${m.proofMessage} data-field="message">${view.text}</pre>
    </details>
    ${actions(expired)}
  `;
}

export const proofStyles = css`
  .purchase {
    font-weight: 600;
    margin: 0.5rem 0 0.75rem;
  }
  pre {
    white-space: pre-wrap;
    overflow-wrap: anywhere;
    font-size: 0.75rem;
    margin: 0;
  }
`;
