/** The OpenAPI document's examples for sign-in and passkeys (shapes as the schemas say). */
import type { SignedIn } from '../../../schemas/operator-signin.ts';

const signedIn: SignedIn = {
  operator: {
    operatorId: 'op_Q2hKxV0t3mYb9sLr1fWz8A',
    name: 'Ada Lovelace',
    email: 'ada@shop.example',
    role: 'finance',
  },
  csrfToken: 'n6Zq0bC8yR1sVt4mKx7pLw2aHd9eJf5gUi3oTy6rEw0',
  expiresAt: '2026-03-02T21:14:05.000Z',
  idleExpiresAt: '2026-03-02T09:44:05.000Z',
};

const assertion = {
  id: 'Jx5c8mQ2vN0bL4sT7kR1wA',
  rawId: 'Jx5c8mQ2vN0bL4sT7kR1wA',
  type: 'public-key',
  authenticatorAttachment: 'platform',
  clientExtensionResults: {},
  response: {
    clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiLi4uIn0',
    authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
    signature: 'MEUCIQDp3w3qXHq9rF0o1u0bN1Jx8vK2cT5zQ7wA9mYb3sLr1fWz',
    userHandle: 'b3BfUTJoS3hWMHQzbVliOXNMcjFmV3o4QQ',
  },
};

export const signinExamples = {
  signinOptions: {
    options: {
      challenge: 'k3Vv0bC8yR1sVt4mKx7pLw2aHd9eJf5gUi3oTy6rEw0',
      timeout: 120000,
      rpId: 'pay.shop.example',
      userVerification: 'required',
    },
  },
  signinRequest: { response: assertion },
  signedIn,
  linkLookupRequest: { link: 'invitation', token: 'aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ3aB5cD7eF9g' },
  linkLookup: {
    link: 'invitation',
    operator: { name: 'Ada Lovelace', email: 'ada@shop.example', role: 'finance' },
    expiresAt: '2026-03-05T09:14:05.000Z',
  },
  registrationOptionsRequest: {
    link: 'invitation',
    token: 'aB3dE5fG7hJ9kL1mN3pQ5rS7tV9wX1yZ3aB5cD7eF9g',
    passkeyName: 'Work laptop',
  },
  registrationOptions: {
    options: {
      challenge: 'p1Lw2aHd9eJf5gUi3oTy6rEw0k3Vv0bC8yR1sVt4mKx7',
      rp: { name: 'Kassa', id: 'pay.shop.example' },
      user: { id: 'b3BfUTJoS3hWMHQzbVliOXNMcjFmV3o4QQ', name: 'ada@shop.example', displayName: 'Ada Lovelace' },
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      timeout: 120000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', userVerification: 'required', requireResidentKey: true },
    },
  },
  registrationRequest: {
    response: {
      id: 'Jx5c8mQ2vN0bL4sT7kR1wA',
      rawId: 'Jx5c8mQ2vN0bL4sT7kR1wA',
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiLi4uIn0',
        attestationObject: 'o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVjESZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAAAA',
        transports: ['internal', 'hybrid'],
      },
    },
  },
  passkey: {
    credentialId: 'Jx5c8mQ2vN0bL4sT7kR1wA',
    name: 'Security key',
    deviceType: 'singleDevice',
    backedUp: false,
    transports: ['usb'],
    createdAt: '2026-03-02T09:14:05.000Z',
    lastUsedAt: null,
  },
  addPasskeyOptionsRequest: { passkeyName: 'Security key' },
};
