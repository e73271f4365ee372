// A real OpenID Connect provider (panva/oidc-provider, development interactions) for the single sign-on tests.
//
// Usage: node provider.mjs '<json config>' where the config is
//   {"port": 5xxxx, "clientId": "...", "clientSecret": "...", "redirectUris": ["..."],
//    "authMethod": "client_secret_basic", "conform": false, "ecKey": false}
// It listens on 127.0.0.1:<port> with the issuer http://127.0.0.1:<port>. The development login form signs in
// whatever login is typed: the account's e-mail is that login, verified unless it starts with "unverified".
// Signing keys are generated at every start (a new `kid`): restarting the provider rotates its keys. With
// "ecKey": true an EC P-256 key (ES256) is published beside the RSA one (ID tokens stay RS256).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const config = JSON.parse(process.argv[2]);
const issuer = `http://127.0.0.1:${config.port}`;

function signingKey(type = 'rsa') {
  const { privateKey } = type === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alg = type === 'ec' ? 'ES256' : 'RS256';
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), use: 'sig', alg };
}

const provider = new Provider(issuer, {
  clients: [{
    client_id: config.clientId,
    client_secret: config.clientSecret,
    redirect_uris: config.redirectUris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: config.authMethod ?? 'client_secret_basic',
  }],
  jwks: { keys: config.ecKey ? [signingKey(), signingKey('ec')] : [signingKey()] },
  cookies: { keys: [randomBytes(16).toString('hex')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // By default the claims of the requested scopes ride in the ID token too; with "conform": true they are only
  // at the userinfo endpoint (the relying party must fetch them there).
  conformIdTokenClaims: config.conform ?? false,
  features: { devInteractions: { enabled: true } },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return { sub: id, email: id, email_verified: !id.startsWith('unverified'), name: id.split('@')[0] };
      },
    };
  },
});
provider.on('server_error', (ctx, error) => console.error('server_error', error));

provider.listen(config.port, '127.0.0.1', () => {
  console.log(JSON.stringify({ issuer }));
});
