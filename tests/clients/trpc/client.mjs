// Drives a running Obeya server with the real tRPC client (@trpc/client, httpBatchLink, superjson)
// and prints one JSON object with what the client saw; tests/clients/test_trpc_client.py asserts on it.
//
// Input: one JSON argument {port, host, cookie?, bearer?, origin?, newName, freeEmail, takenEmail}.
import http from 'node:http';

import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import superjson from 'superjson';

const config = JSON.parse(process.argv[2]);

// Every request the client put on the wire, in order: {method, path, status}.
const wire = [];

// Node's fetch (undici) drops a caller's `Host` header, and `*.localhost` does not resolve here, so
// this fetch-compatible wrapper sends with node:http to 127.0.0.1 and names the organization by Host.
function hostFetch(input, init = {}) {
  const url = new URL(typeof input === 'string' ? input : input.url);
  const headers = { ...Object.fromEntries(new Headers(init.headers ?? {})), host: url.host };
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port: url.port, method: init.method ?? 'GET', path: url.pathname + url.search,
        headers, signal: init.signal ?? undefined },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () => {
          wire.push({ method: init.method ?? 'GET', path: url.pathname + url.search, status: response.statusCode });
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of [].concat(value)) responseHeaders.append(name, one);
          }
          resolve(new Response(Buffer.concat(chunks), { status: response.statusCode, headers: responseHeaders }));
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (init.body !== undefined && init.body !== null) request.write(init.body);
    request.end();
  });
}

function makeClient({ bearer, cookie, origin }) {
  const headers = {};
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (cookie) headers.cookie = `authjs.session-token=${cookie}`;
  if (origin) headers.origin = origin;
  return createTRPCClient({
    links: [
      httpBatchLink({
        url: `http://${config.host}:${config.port}/api/trpc`,
        transformer: superjson,
        fetch: hostFetch,
        headers,
      }),
    ],
  });
}

const client = makeClient(config);

// What a rejected call looked like to the client.
function describe(error) {
  if (!(error instanceof TRPCClientError)) {
    return { name: error?.name ?? typeof error, message: String(error?.message ?? error) };
  }
  return { name: error.name, message: error.message, code: error.data?.code, httpStatus: error.data?.httpStatus,
    path: error.data?.path, shapeCode: error.shape?.code };
}

async function settle(promise) {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error: describe(error) };
  }
}

// Runs `calls` in one tick (so httpBatchLink puts them in one request) and reports the requests sent.
async function batch(calls) {
  const before = wire.length;
  const results = await Promise.all(calls().map(settle));
  return { results, requests: wire.slice(before) };
}

const report = {};
report.me = await settle(client.auth.me.query());
report.updateProfile = await settle(client.auth.updateProfile.mutate({ name: config.newName }));
report.meAfterUpdate = await settle(client.auth.me.query());
report.batch = await batch(() => [client.auth.me.query(), client.auth.checkEmail.query({ email: config.freeEmail })]);
report.mixedBatch = await batch(() => [client.auth.me.query(), client.auth.checkEmail.query({ email: config.takenEmail })]);
report.conflict = await settle(client.auth.checkEmail.query({ email: config.takenEmail }));
report.unknown = await settle(client.nothing.here.query());
report.invalid = await settle(client.auth.updateProfile.mutate({ name: 'x' }));
// superjson sends `undefined` as null plus a meta mark: the server must read it as "absent".
report.undefinedField = await settle(client.auth.checkEmail.query({ email: undefined }));
report.badCredential = await batch(() => {
  const stranger = makeClient({ bearer: 'svc_sk_live_not-a-real-key' });
  return [stranger.auth.me.query(), stranger.auth.checkEmail.query({ email: config.freeEmail })];
});
report.wire = wire;

process.stdout.write(JSON.stringify(report) + '\n');
