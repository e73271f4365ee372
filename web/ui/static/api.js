// Stand-in for the shared API module (calls to /api/trpc with an Idempotency-Key on writes): only its two
// exported signatures, so that the generated client (api/client.js) type-checks until the real module lands.

/**
 * @param {string} procedure
 * @param {object} input
 * @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<any>}
 */
export async function query(procedure, input, options) {
  throw new Error("not built yet");
}

/**
 * @param {string} procedure
 * @param {object} input
 * @param {{idempotencyKey?: string, signal?: AbortSignal}} [options]
 * @returns {Promise<any>}
 */
export async function mutate(procedure, input, options) {
  throw new Error("not built yet");
}
