/**
 * The operators' settings (docs/operators.md): dual control's threshold, single sign-on with the
 * company's OpenID Connect provider (signin/signin-settings.ts), and the old shared operator
 * token, which opens nothing any more but is still read, so that a deployment that sets it is told so
 * and its value is kept out of the logs.
 */
import { compareDecimals, isDecimal } from '../../lib/money.ts';
import { ConfigError, required, secret, type SettingsSource } from '../config-readers.ts';
import { parseOidcSettings, type OidcSettings } from './signin/signin-settings.ts';

export interface OperatorSettings {
  /** Set only by deployments from before operators were people: it opens nothing now, and start warns. */
  operatorToken: string | null;
  /**
   * Dual control: mint orders and retries of fewer tokens, and refunds of less money, need one person;
   * null (the default): every one needs a second person's approval.
   */
  approvalThreshold: string | null;
  /** Operators' sign-in with the company's OpenID Connect provider (KASSA_OIDC_*); null: passkeys only. */
  oidc: OidcSettings | null;
}

export function parseOperatorSettings(source: SettingsSource, merchantKey: string): OperatorSettings {
  const operatorToken = source.KASSA_OPERATOR_TOKEN
    ? required('KASSA_OPERATOR_TOKEN', secret, source.KASSA_OPERATOR_TOKEN)
    : null;
  if (operatorToken === merchantKey)
    throw new ConfigError('KASSA_OPERATOR_TOKEN', 'must differ from KASSA_MERCHANT_KEY');
  return {
    operatorToken,
    approvalThreshold: parseThreshold(source.KASSA_APPROVAL_THRESHOLD),
    oidc: parseOidcSettings(source),
  };
}

function parseThreshold(value: string | undefined): string | null {
  const threshold = value?.trim();
  if (!threshold || threshold === 'none') return null;
  if (!isDecimal(threshold, 2) || compareDecimals(threshold, '0') <= 0)
    throw new ConfigError(
      'KASSA_APPROVAL_THRESHOLD',
      `must be a positive amount with at most 2 decimal places (such as 100), or none; not "${threshold}"`,
    );
  return threshold;
}
