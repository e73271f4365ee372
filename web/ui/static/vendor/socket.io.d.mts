// Types for the vendored socket.io-client (ours, not from npm): `any`.
export const io: any, Manager: any, Socket: any, connect: any, protocol: any;
