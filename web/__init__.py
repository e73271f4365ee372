"""The edge: RPC (tRPC wire format) and REST routers, middleware (request context, tenancy and auth,
rate limits, idempotency, errors), OpenAPI, and later the Socket.IO gateway and browser UI."""
