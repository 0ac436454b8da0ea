// A fake OpenID Connect provider for end-to-end tests: discovery, a JWKS with a fresh RSA key,
// an authorization endpoint that sends the browser straight back with a code (the user
// "consents" at once), and a token endpoint that returns an RS256-signed ID token. It only
// listens on loopback and keeps everything in memory; the key is generated per start.
import { createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const b64url = (value) => Buffer.from(value).toString('base64url');

/**
 * @param {object} [options]
 * @param {string} [options.clientId]
 * @param {string} [options.clientSecret]
 * @param {string} [options.redirectUri] the callback registered for the client (the server's
 *   REGARD_OAUTH_CALLBACK_URL); other redirect URIs are refused, as real providers do. Set it
 *   later with `register` when the server's address is only known once it runs.
 * @param {string[]} [options.authMethods] token_endpoint_auth_methods_supported
 */
export async function startOidcProvider({
  clientId = 'regard-e2e-client',
  clientSecret = 'regard-e2e-secret',
  redirectUri,
  authMethods = ['client_secret_post'],
} = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `e2e-${randomUUID()}`;
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
  /** @type {Map<string, {person: object, nonce: string}>} */
  const grants = new Map();
  const state = {
    person: newPerson(`oidc-${randomUUID()}@example.com`),
    /** @type {Array<Record<string, string>>} every authorization request's query */
    authorizations: [],
    /** @type {string[]} how the client authenticated at the token endpoint */
    tokenAuth: [],
  };
  let issuer = '';

  function signIdToken(claims) {
    const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid }));
    const payload = b64url(JSON.stringify(claims));
    const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(privateKey);
    return `${header}.${payload}.${signature.toString('base64url')}`;
  }

  function send(res, status, body, headers = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  async function readForm(req) {
    let body = '';
    for await (const chunk of req) body += chunk;
    return Object.fromEntries(new URLSearchParams(body));
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: authMethods,
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks') {
      return send(res, 200, { keys: [jwk] });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const query = Object.fromEntries(url.searchParams);
      state.authorizations.push(query);
      if (query.client_id !== clientId || query.redirect_uri !== redirectUri || query.response_type !== 'code') {
        return send(res, 400, { error: 'invalid_request' });
      }
      const code = randomUUID();
      grants.set(code, { person: { ...state.person }, nonce: query.nonce ?? '' });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', query.state ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = await readForm(req);
      const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
      let authenticated;
      if (basic) {
        state.tokenAuth.push('basic');
        // RFC 6749 §2.3.1: both parts are form-encoded, then joined by the first colon.
        const pair = Buffer.from(basic, 'base64').toString();
        const colon = pair.indexOf(':');
        const decode = (part) => decodeURIComponent(part.replaceAll('+', ' '));
        authenticated = decode(pair.slice(0, colon)) === clientId && decode(pair.slice(colon + 1)) === clientSecret;
      } else {
        state.tokenAuth.push('post');
        authenticated = form.client_id === clientId && form.client_secret === clientSecret;
      }
      if (!authenticated) return send(res, 401, { error: 'invalid_client' });
      const grant = grants.get(form.code);
      grants.delete(form.code);
      if (!grant || form.grant_type !== 'authorization_code' || form.redirect_uri !== redirectUri) {
        return send(res, 400, { error: 'invalid_grant' });
      }
      const now = Math.floor(Date.now() / 1000);
      const idToken = signIdToken({
        iss: issuer,
        sub: grant.person.sub,
        aud: clientId,
        iat: now,
        exp: now + 300,
        nonce: grant.nonce,
        email: grant.person.email,
        email_verified: grant.person.emailVerified,
        name: grant.person.name,
      });
      return send(res, 200, {
        access_token: `provider-access-${randomUUID()}`,
        token_type: 'Bearer',
        expires_in: 3600,
        id_token: idToken,
      });
    }
    send(res, 404, { error: 'not_found' });
  });

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${server.address().port}`;

  return {
    issuer,
    clientId,
    clientSecret,
    authorizations: state.authorizations,
    tokenAuth: state.tokenAuth,
    /** Registers the client's callback (the only redirect URI accepted from then on). */
    register(uri) {
      redirectUri = uri;
    },
    /** The next sign-ins are as this person. */
    signInAs(person) {
      state.person = person;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A person at the provider, with a fresh subject id. */
export function newPerson(email, emailVerified = true) {
  return { sub: randomUUID(), email, emailVerified, name: 'Camille E2E' };
}
