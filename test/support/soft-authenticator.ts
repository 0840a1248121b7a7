/**
 * A passkey authenticator in software, for tests and benchmarks that drive the proxy over HTTP
 * without a browser: it makes discoverable ES256 credentials (attestation `none`) and signs
 * challenges as a platform authenticator with user verification would, in WebAuthn's JSON form (what
 * @simplewebauthn/browser hands the proxy). Chromium's virtual authenticator is what the page tests
 * use; this one lets a test also make what no honest authenticator would (a counter that goes back,
 * another key's signature).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

/** CBOR (RFC 8949) of what WebAuthn needs: integers, text, bytes, arrays and maps. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number) => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 256) return Buffer.from([(major << 5) | 24, length]);
    if (length < 65536) return Buffer.from([(major << 5) | 25, length >> 8, length & 255]);
    const big = Buffer.alloc(5);
    big[0] = (major << 5) | 26;
    big.writeUInt32BE(length, 1);
    return big;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** User present, user verified, backup eligible and backed up (a synced passkey), attested data. */
const FLAGS = { up: 0x01, uv: 0x04, be: 0x08, bs: 0x10, at: 0x40 };

export interface SoftCredential {
  id: string;
  /** The WebAuthn user handle the proxy gave (base64url). */
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

export interface AssertOptions {
  /** Which of its credentials to use (the first by default). */
  credentialId?: string;
  /** Sign with this key instead of the credential's own (a forgery). */
  privateKey?: KeyObject;
  /** Report this counter instead of the next one (a clone, or a replay, would). */
  counter?: number;
  /** Leave the user-verified flag out. */
  unverified?: boolean;
  /** Sign for another origin (a phishing page's). */
  origin?: string;
}

export const newKey = (): KeyObject => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(
    readonly origin: string,
    readonly rpId: string = new URL(origin).hostname,
  ) {}

  private authenticatorData(flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter >>> 0);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** A new credential for the options' user (as navigator.credentials.create() answers them). */
  register(options: { challenge: string; user: { id: string } }): Record<string, unknown> {
    const privateKey = newKey();
    const jwk = privateKey.export({ format: 'jwk' });
    const id = randomBytes(16);
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, id, cbor(coseKey)]);
    const authData = this.authenticatorData(FLAGS.up | FLAGS.uv | FLAGS.be | FLAGS.bs | FLAGS.at, 0, attested);
    this.credentials.push({ id: b64(id), userHandle: options.user.id, privateKey, counter: 0 });
    return {
      id: b64(id),
      rawId: b64(id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64(cbor({ fmt: 'none', attStmt: new Map(), authData })),
        transports: ['internal'],
      },
    };
  }

  /** Its answer to a sign-in challenge (as navigator.credentials.get() gives it). */
  assert(options: { challenge: string }, how: AssertOptions = {}): Record<string, unknown> {
    const credential = how.credentialId
      ? this.credentials.find((each) => each.id === how.credentialId)
      : this.credentials[0];
    if (!credential) throw new Error('this authenticator holds no such credential');
    const counter = how.counter ?? ++credential.counter;
    const authData = this.authenticatorData(FLAGS.up | (how.unverified ? 0 : FLAGS.uv) | FLAGS.be | FLAGS.bs, counter);
    const clientData = this.clientData('webauthn.get', options.challenge, how.origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authData, sha256(clientData)]),
      how.privateKey ?? credential.privateKey,
    );
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64(clientData),
        authenticatorData: b64(authData),
        signature: b64(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
