// The client side of scripts/oauth_e2e.sh: tokens from a real
// authorization server (scripts/oauth/provider.mjs), then presa's
// examples/oauth_server.rs as a host and as an attacker see it.
//
// It prints one line per check, `ok` or `FAIL` with what it saw, and exits
// 1 if any failed. Every expectation is exact: a status, a whole
// `WWW-Authenticate` value, a whole tool answer.
//
// Environment (the script sets it): E2E_ISSUER, the authorization server's
// issuer; E2E_RESOURCE, the MCP endpoint's URL, which is also the audience;
// E2E_CLIENT_ID and E2E_CLIENT_SECRET; MCP_TS_SDK, the folder of
// @modelcontextprotocol/sdk 1.x.
import crypto from 'node:crypto';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} must be set`);
    process.exit(2);
  }
  return value;
};
const issuer = env('E2E_ISSUER');
const resource = env('E2E_RESOURCE');
const clientId = env('E2E_CLIENT_ID');
const clientSecret = env('E2E_CLIENT_SECRET');
const sdk = env('MCP_TS_SDK');

const load = (file) => import(pathToFileURL(path.join(sdk, 'dist/esm', file)).href);
const { Client } = await load('client/index.js');
const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
const { ElicitRequestSchema } = await load('types.js');

const TIMEOUT = 15_000;
const resourceUrl = new URL(resource);
const metadataUrl = `${resourceUrl.origin}/.well-known/oauth-protected-resource${resourceUrl.pathname}`;

let failures = 0;
/** Runs one check: `body` returns a line of detail, or throws what it saw. */
const check = async (name, body) => {
  try {
    const detail = await body();
    console.log(`ok    ${name}${detail ? `: ${detail}` : ''}`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL  ${name}: ${error?.message ?? error}`);
  }
};
const expectEqual = (what, seen, expected) => {
  if (!isDeepStrictEqual(seen, expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(seen)}`);
  }
};

const base64url = {
  decode: (part) => Buffer.from(part, 'base64url').toString('utf8'),
  encode: (text) => Buffer.from(text, 'utf8').toString('base64url'),
};
const decodeJwt = (token) => {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Error(`not a JWT: ${token.slice(0, 40)}…`);
  return { header: JSON.parse(base64url.decode(parts[0])), claims: JSON.parse(base64url.decode(parts[1])) };
};

// The authorization server's metadata names its token endpoint.
let tokenEndpoint;
await check('the authorization server publishes its metadata', async () => {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(TIMEOUT) });
  expectEqual('status', response.status, 200);
  const metadata = await response.json();
  expectEqual('issuer', metadata.issuer, issuer);
  if (typeof metadata.token_endpoint !== 'string') throw new Error(`no token_endpoint in ${JSON.stringify(metadata)}`);
  tokenEndpoint = metadata.token_endpoint;
  return `token endpoint ${tokenEndpoint}`;
});

/**
 * A client-credentials token for `scope`, naming `audience` as resource
 * when given; bound to the key of `dpop`, a DPoP proof, when given.
 */
const requestToken = async (scope, audience, dpop) => {
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope });
  if (audience) form.set('resource', audience);
  const basic = Buffer.from(
    `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`,
  ).toString('base64');
  const headers = { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' };
  if (dpop) headers.dpop = dpop;
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers,
    body: form,
    signal: AbortSignal.timeout(TIMEOUT),
  });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${body}`);
  const parsed = JSON.parse(body);
  expectEqual('token_type', parsed.token_type, dpop ? 'DPoP' : 'Bearer');
  return parsed.access_token;
};

/** A P-256 key for DPoP (RFC 9449): its public JWK and its RFC 7638 thumbprint. */
const dpopKey = () => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { crv, kty, x, y } = publicKey.export({ format: 'jwk' });
  const jwk = { crv, kty, x, y };
  const thumbprint = crypto.createHash('sha256').update(JSON.stringify(jwk)).digest('base64url');
  return { jwk, privateKey, thumbprint };
};
/** A DPoP proof by `key` of a `htm` request to `htu`, with `accessToken` when given. */
const dpopProof = (key, htm, htu, accessToken) => {
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk };
  const claims = { jti: crypto.randomUUID(), htm, htu, iat: Math.floor(Date.now() / 1000) };
  if (accessToken) claims.ath = crypto.createHash('sha256').update(accessToken).digest('base64url');
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(claims))}`;
  const signature = crypto.sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
};

/** Asserts `token` is a JWT access token for the resource with exactly `scope`. */
const expectAccessToken = (token, scope) => {
  const { header, claims } = decodeJwt(token);
  expectEqual('header typ', header.typ, 'at+jwt');
  expectEqual('header alg', header.alg, 'RS256');
  expectEqual('iss', claims.iss, issuer);
  expectEqual('aud', claims.aud, resource);
  expectEqual('sub', claims.sub, clientId);
  expectEqual('scope', claims.scope, scope);
  return `header ${JSON.stringify(header)}, claims ${JSON.stringify(claims)}`;
};

let builder;
let builder2;
let reader;
await check('a client-credentials token for the resource with scope jobs:build is a JWT access token', async () => {
  builder = await requestToken('jobs:build', resource);
  return expectAccessToken(builder, 'jobs:build');
});
await check('a token requested with scope jobs:read names jobs:read only', async () => {
  reader = await requestToken('jobs:read', resource);
  expectAccessToken(reader, 'jobs:read');
});
await check('a second jobs:build token has a signature of its own', async () => {
  builder2 = await requestToken('jobs:build', resource);
  expectAccessToken(builder2, 'jobs:build');
  if (builder2.split('.')[2] === builder.split('.')[2]) throw new Error('both tokens have the same signature');
});

// The official TypeScript SDK as a host: a 2025-11-25 client over
// Streamable HTTP, its token in every request's Authorization header.
await check('the TypeScript SDK calls whoami and build with the jobs:build token', async () => {
  const asked = [];
  const client = new Client(
    { name: 'presa-oauth-e2e', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { ok: true } };
  });
  const transport = new StreamableHTTPClientTransport(resourceUrl, {
    requestInit: { headers: { Authorization: `Bearer ${builder}` } },
  });
  await client.connect(transport);
  try {
    const who = await client.callTool({ name: 'whoami', arguments: {} }, undefined, { timeout: TIMEOUT });
    expectEqual('whoami', who.content, [{ type: 'text', text: `${clientId} jobs:build` }]);
    const built = await client.callTool({ name: 'build', arguments: { target: 'docs' } }, undefined, { timeout: TIMEOUT });
    expectEqual('build', { isError: built.isError ?? false, content: built.content }, {
      isError: false,
      content: [{ type: 'text', text: 'built docs' }],
    });
    expectEqual('elicitations asked', asked, ['Build docs?']);
    return `whoami "${who.content[0].text}", build asked "${asked[0]}" and answered "${built.content[0].text}"`;
  } finally {
    await client.close();
  }
});

// Raw requests, as any client (or attacker) can send them: a stateless
// 2026-07-28 tools/call.
const VERSION = '2026-07-28';
const call = async (tool, token, args = {}, extra = {}) => {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  Object.assign(headers, extra);
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'presa-oauth-e2e', version: '1.0.0' },
      },
    },
  };
  const response = await fetch(resource, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT),
  });
  const text = await response.text();
  let message = null;
  const json = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).pop()
    : text;
  try {
    message = JSON.parse(json);
  } catch {
    message = null;
  }
  return { status: response.status, challenge: response.headers.get('www-authenticate'), text, message };
};
const toolText = (answer) => answer.message?.result?.content?.[0]?.text;
const expectStatus = (answer, status) => {
  if (answer.status !== status) {
    throw new Error(`expected ${status}, saw ${answer.status} (WWW-Authenticate: ${answer.challenge}; body: ${answer.text.slice(0, 300)})`);
  }
};
// The resource takes bearer and DPoP-bound tokens: each challenge comes
// under both schemes, the DPoP one naming the algorithms it accepts.
const dpopAlgs = 'ES256 ES384 EdDSA PS256 PS384 PS512 RS256 RS384 RS512';
const challenges = (parameters) => `Bearer ${parameters}, DPoP ${parameters}, algs="${dpopAlgs}"`;
const refused = (description) =>
  challenges(`error="invalid_token", error_description="${description}", resource_metadata="${metadataUrl}"`);

await check('a raw tools/call of whoami with the jobs:build token is answered', async () => {
  const answer = await call('whoami', builder);
  expectStatus(answer, 200);
  expectEqual('whoami', toolText(answer), `${clientId} jobs:build`);
  return `200, "${toolText(answer)}"`;
});

await check('no token: 401 naming the sign-in scope and the Protected Resource Metadata', async () => {
  const answer = await call('whoami', undefined);
  expectStatus(answer, 401);
  expectEqual(
    'WWW-Authenticate',
    answer.challenge,
    challenges(`scope="jobs:read", resource_metadata="${metadataUrl}"`),
  );
  return `401, ${answer.challenge}`;
});

await check('one character of the payload altered: 401 invalid_token', async () => {
  const [header, payload, signature] = builder.split('.');
  const claims = base64url.decode(payload);
  // The first character of the `jti` value, changed: still JSON, still
  // base64url, one character apart; only the signature can tell.
  const at = claims.indexOf('"jti":"') + '"jti":"'.length;
  const altered = claims.slice(0, at) + (claims[at] === 'A' ? 'B' : 'A') + claims.slice(at + 1);
  expectEqual('characters changed', [...claims].filter((c, i) => c !== altered[i]).length, 1);
  JSON.parse(altered);
  const answer = await call('whoami', `${header}.${base64url.encode(altered)}.${signature}`);
  expectStatus(answer, 401);
  expectEqual('WWW-Authenticate', answer.challenge, refused("the token's signature does not verify"));
  return `401, ${answer.challenge}`;
});

await check("the signature swapped for another token's: 401 invalid_token", async () => {
  const [header, payload] = builder.split('.');
  const answer = await call('whoami', `${header}.${payload}.${builder2.split('.')[2]}`);
  expectStatus(answer, 401);
  expectEqual('WWW-Authenticate', answer.challenge, refused("the token's signature does not verify"));
  return `401, ${answer.challenge}`;
});

await check('a token the same server issued for another resource: 401 invalid_token', async () => {
  const other = `${resourceUrl.origin}/other`;
  const token = await requestToken('jobs:build', other);
  expectEqual('aud', decodeJwt(token).claims.aud, other);
  const answer = await call('whoami', token);
  expectStatus(answer, 401);
  expectEqual('WWW-Authenticate', answer.challenge, refused('the token is not for this resource'));
  return `401, ${answer.challenge}`;
});

await check('an opaque token (no resource requested): 401 invalid_token', async () => {
  const token = await requestToken('jobs:build');
  if (token.split('.').length === 3) throw new Error(`expected an opaque token, got a JWT: ${token}`);
  const answer = await call('whoami', token);
  expectStatus(answer, 401);
  expectEqual('WWW-Authenticate', answer.challenge, refused('the token is not valid'));
  return `401, ${answer.challenge}`;
});

await check('the jobs:read token calls whoami: 200', async () => {
  const answer = await call('whoami', reader);
  expectStatus(answer, 200);
  expectEqual('whoami', toolText(answer), `${clientId} jobs:read`);
  return `200, "${toolText(answer)}"`;
});

await check('the jobs:read token calls build: 403 insufficient_scope naming jobs:build', async () => {
  const answer = await call('build', reader, { target: 'docs' });
  expectStatus(answer, 403);
  expectEqual(
    'WWW-Authenticate',
    answer.challenge,
    challenges(`error="insufficient_scope", scope="jobs:build", resource_metadata="${metadataUrl}"`),
  );
  return `403, ${answer.challenge}`;
});

await check('the Protected Resource Metadata names the resource, the issuer and jobs:build', async () => {
  const response = await fetch(metadataUrl, { signal: AbortSignal.timeout(TIMEOUT) });
  expectEqual('status', response.status, 200);
  const document = await response.json();
  expectEqual('resource', document.resource, resource);
  expectEqual('authorization_servers', document.authorization_servers, [issuer]);
  // The scopes the server's tools declare: `build`'s.
  expectEqual('scopes_supported', document.scopes_supported, ['jobs:build']);
  return JSON.stringify(document);
});

// DPoP (RFC 9449): oidc-provider binds a token to the key of the proof
// its token request carries, and presa takes it with a proof by that key
// only.
const clientKey = dpopKey();
let bound;
await check('a token requested with a DPoP proof is bound to the proof\'s key', async () => {
  bound = await requestToken('jobs:build', resource, dpopProof(clientKey, 'POST', tokenEndpoint));
  const { claims } = decodeJwt(bound);
  expectEqual('cnf', claims.cnf, { jkt: clientKey.thumbprint });
  return `cnf ${JSON.stringify(claims.cnf)}`;
});

let proof;
await check('the bound token with a proof by its key calls whoami: 200', async () => {
  proof = dpopProof(clientKey, 'POST', resource, bound);
  const answer = await call('whoami', undefined, {}, { authorization: `DPoP ${bound}`, dpop: proof });
  expectStatus(answer, 200);
  expectEqual('whoami', toolText(answer), `${clientId} jobs:build`);
  return `200, "${toolText(answer)}"`;
});

await check('the same proof again: 401 invalid_dpop_proof', async () => {
  const answer = await call('whoami', undefined, {}, { authorization: `DPoP ${bound}`, dpop: proof });
  expectStatus(answer, 401);
  expectEqual(
    'WWW-Authenticate',
    answer.challenge,
    `DPoP error="invalid_dpop_proof", error_description="the DPoP proof was used before", resource_metadata="${metadataUrl}", algs="${dpopAlgs}"`,
  );
  return `401, ${answer.challenge}`;
});

await check('the bound token, stolen, as a bearer token: 401 invalid_token', async () => {
  const answer = await call('whoami', bound);
  expectStatus(answer, 401);
  expectEqual('WWW-Authenticate', answer.challenge, refused('the token is DPoP-bound: send it with the DPoP scheme and a proof'));
  return `401, ${answer.challenge}`;
});

await check("the bound token, stolen, with a proof by the thief's key: 401 invalid_token", async () => {
  const thief = dpopKey();
  const answer = await call('whoami', undefined, {}, {
    authorization: `DPoP ${bound}`,
    dpop: dpopProof(thief, 'POST', resource, bound),
  });
  expectStatus(answer, 401);
  expectEqual('WWW-Authenticate', answer.challenge, refused('the token is bound to another key'));
  return `401, ${answer.challenge}`;
});

console.log(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
