/**
 * A test-only page for the browser tests, until the web app has its own passkey screens. The test
 * serves it from the app's origin (Playwright answers the request), so its fetches and WebAuthn
 * calls are same-origin with the real server, exactly as the app's own pages will be. The script
 * converts between WebAuthn's ArrayBuffers and the base64url JSON the API speaks by hand, so the
 * test depends on no helper library for the browser side.
 */
export const PASSKEY_TEST_PAGE_PATH = '/e2e/passkeys';

const script = String.raw`
const status = document.getElementById('status');
const field = (id) => document.getElementById(id).value;

function fromBase64url(text) {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '==='.slice((base64.length + 3) % 4));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

function toBase64url(buffer) {
  let binary = '';
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text === '' ? null : JSON.parse(text);
  if (!response.ok) throw new Error(response.status + ' ' + (json && json.code));
  return json;
}

const actions = {
  async password() {
    const { user } = await api('POST', '/auth/session', { email: field('email'), password: field('password') });
    return 'signed in as ' + user.email;
  },

  async addPasskey() {
    const { options } = await api('POST', '/api/v1/me/passkeys/options');
    const credential = await navigator.credentials.create({
      publicKey: {
        ...options,
        challenge: fromBase64url(options.challenge),
        user: { ...options.user, id: fromBase64url(options.user.id) },
        excludeCredentials: options.excludeCredentials.map((item) => ({ ...item, id: fromBase64url(item.id) })),
      },
    });
    const response = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: toBase64url(credential.response.clientDataJSON),
        attestationObject: toBase64url(credential.response.attestationObject),
        transports: credential.response.getTransports(),
      },
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment,
    };
    const { passkey } = await api('POST', '/api/v1/me/passkeys', { name: field('passkey-name'), response });
    return 'added passkey ' + passkey.name;
  },

  async signOut() {
    await api('POST', '/auth/logout');
    return 'signed out';
  },

  async passkey() {
    const { options, challenge_id } = await api('POST', '/auth/passkey/options');
    const credential = await navigator.credentials.get({
      publicKey: {
        ...options,
        challenge: fromBase64url(options.challenge),
        allowCredentials: options.allowCredentials.map((item) => ({ ...item, id: fromBase64url(item.id) })),
      },
    });
    const response = {
      id: credential.id,
      rawId: toBase64url(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: toBase64url(credential.response.clientDataJSON),
        authenticatorData: toBase64url(credential.response.authenticatorData),
        signature: toBase64url(credential.response.signature),
        userHandle: credential.response.userHandle === null ? null : toBase64url(credential.response.userHandle),
      },
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment,
    };
    const { user } = await api('POST', '/auth/passkey/verify', { challenge_id, response });
    return 'signed in with a passkey as ' + user.email;
  },

  async whoAmI() {
    try {
      const { user } = await api('GET', '/api/v1/me');
      return 'you are ' + user.email;
    } catch (error) {
      return 'not signed in (' + error.message + ')';
    }
  },
};

let run = 0;
for (const button of document.querySelectorAll('button[data-action]')) {
  button.addEventListener('click', async () => {
    status.dataset.run = String(++run);
    status.dataset.state = 'busy';
    status.textContent = 'working';
    try {
      status.textContent = await actions[button.dataset.action]();
    } catch (error) {
      status.textContent = 'error: ' + error.name + ': ' + error.message;
    }
    status.dataset.state = 'done';
  });
}
`;

export const PASSKEY_TEST_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Passkeys (test page)</title></head>
<body>
  <main>
    <h1>Passkeys</h1>
    <label>E-mail <input id="email" type="email" autocomplete="username"></label>
    <label>Password <input id="password" type="password" autocomplete="current-password"></label>
    <button type="button" data-action="password">Sign in with password</button>
    <label>Passkey name <input id="passkey-name" value="Test laptop"></label>
    <button type="button" data-action="addPasskey">Add a passkey</button>
    <button type="button" data-action="signOut">Sign out</button>
    <button type="button" data-action="passkey">Sign in with a passkey</button>
    <button type="button" data-action="whoAmI">Who am I?</button>
    <output id="status" role="status" data-run="0" data-state="done"></output>
  </main>
  <script>${script}</script>
</body>
</html>`;
