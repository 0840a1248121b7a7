/**
 * The browser's passkey prompts (@simplewebauthn/browser) around the proxy's ceremonies: options from
 * the proxy, the person's passkey, its answer back to the proxy.
 */
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { call, problemText, words, type Answer } from './page.ts';

/** How a prompt ended: the proxy's answer to the passkey's, or what the person is told instead. */
export type PromptOutcome<T> = { ok: true; body: T } | { ok: false; message: string };

const failure = (message: string): PromptOutcome<never> => ({ ok: false, message });

/** The person closed the prompt or it timed out: nothing was signed, nothing to report as an error. */
const cancelled = (error: unknown) =>
  (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED') ||
  (error instanceof Error && error.name === 'NotAllowedError');

async function prompt<T, O>(
  optionsCall: () => Promise<Answer<{ options?: O } & { error?: string; details?: { problem?: string } }>>,
  ask: (options: O) => Promise<unknown>,
  answerCall: (response: unknown) => Promise<Answer<T & { error?: string; details?: { problem?: string } }>>,
  refusedWords: (answer: Answer<{ error?: string; details?: { problem?: string } }>) => string,
): Promise<PromptOutcome<T>> {
  if (!browserSupportsWebAuthn()) return failure(words.unsupported);
  const options = await optionsCall();
  if (options.status !== 200 || !options.body.options) return failure(problemText(options));
  let response: unknown;
  try {
    response = await ask(options.body.options);
  } catch (error) {
    return failure(cancelled(error) ? words.cancelled : words.notMade);
  }
  const answer = await answerCall(response);
  return answer.status >= 200 && answer.status < 300 ? { ok: true, body: answer.body } : failure(refusedWords(answer));
}

/** Signs in with any passkey of this site. */
export const signInWithPasskey = () =>
  prompt<Record<string, unknown>, PublicKeyCredentialRequestOptionsJSON>(
    () => call('POST', '/operator/signin/options'),
    (optionsJSON) => startAuthentication({ optionsJSON }),
    (response) => call('POST', '/operator/signin', { response }),
    // Whatever was wrong, the proxy says the same; so does the page.
    (answer) => (answer.status === 401 ? words.signinFailed : problemText(answer)),
  );

/** Makes a passkey on options from `optionsPath`, and hands it to `answerPath`. */
export const makePasskey = (optionsPath: string, request: unknown, answerPath: string) =>
  prompt<Record<string, unknown>, PublicKeyCredentialCreationOptionsJSON>(
    () => call('POST', optionsPath, request),
    (optionsJSON) => startRegistration({ optionsJSON }),
    (response) => call('POST', answerPath, { response }),
    problemText,
  );
