// A real authorization server for scripts/oauth_e2e.sh: oidc-provider
// (OpenID Certified), on a loopback port the system picks, with one
// confidential client that may use the client-credentials grant.
//
// - Issuer: `http://127.0.0.1:PORT`, no trailing slash, printed on
//   stdout as `listening at ISSUER` once the port is bound.
// - The machine client: E2E_CLIENT_ID and E2E_CLIENT_SECRET,
//   authenticating with client_secret_basic, allowed the scopes
//   `jobs:build` and `jobs:read`, by the client-credentials grant.
// - Users: any client may register itself (RFC 7591) and sign users in by
//   the authorization code grant, through the development login and
//   consent pages (any login, any password; consent grants what was
//   asked), with PKCE, `iss` on the response (RFC 9207), and a refresh
//   token when `offline_access` is asked for.
// - Resource indicators (RFC 8707): a token request naming
//   `resource=http://127.0.0.1:…/…` (any loopback http URL, since the MCP
//   server's port is picked after this one's) gets a JWT access token
//   (RFC 9068, `typ: at+jwt`, RS256) whose `aud` is that resource, and whose
//   `scope` is the scopes requested among the resource server's
//   (`jobs:build jobs:read`). It lives 300 s for the machine client and
//   USER_TOKEN_TTL_S for a user's, so that a test sees it expire.
// - Its signing keys are made at start: an RSA key, which signs, and a
//   P-256 key beside it in the JWKS, so that a verifier has to pick by
//   `kid`.
//
// OIDC_PROVIDER names the oidc-provider package folder.
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { default: Provider, errors } = await import(
  pathToFileURL(path.join(process.env.OIDC_PROVIDER, 'lib/index.js')).href
);

const clientId = process.env.E2E_CLIENT_ID;
const clientSecret = process.env.E2E_CLIENT_SECRET;
if (!clientId || !clientSecret) {
  console.error('E2E_CLIENT_ID and E2E_CLIENT_SECRET must be set');
  process.exit(2);
}

const RESOURCE_SCOPES = 'jobs:build jobs:read';
// Short enough for a test to wait out, long enough to sign in with.
const USER_TOKEN_TTL_S = 4;

const jwk = (type, options, kid, alg) => {
  const { privateKey } = crypto.generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
};
const jwks = {
  keys: [
    jwk('rsa', { modulusLength: 2048 }, 'e2e-rs256', 'RS256'),
    jwk('ec', { namedCurve: 'P-256' }, 'e2e-es256', 'ES256'),
  ],
};

// The port first: the issuer names it.
const server = http.createServer();
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(0, '127.0.0.1', resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks,
  cookies: { keys: [crypto.randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'offline_access', 'jobs:build', 'jobs:read'],
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: RESOURCE_SCOPES,
    },
  ],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A request without `resource` names none: its token is opaque.
      defaultResource: async () => undefined,
      getResourceServerInfo: async (_ctx, resourceIndicator, client) => {
        const url = URL.parse(resourceIndicator);
        if (url?.protocol !== 'http:' || url.hostname !== '127.0.0.1') {
          throw new errors.InvalidTarget();
        }
        return {
          scope: RESOURCE_SCOPES,
          audience: resourceIndicator,
          accessTokenFormat: 'jwt',
          accessTokenTTL: client.clientId === clientId ? 300 : USER_TOKEN_TTL_S,
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  ttl: { ClientCredentials: 300 },
});
provider.on('server_error', (_ctx, error) => console.error('server_error', error));
server.on('request', provider.callback());
console.log(`listening at ${issuer}`);

// Stopped, it ends its connections too: a keep-alive one must not hold it.
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
