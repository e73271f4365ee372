// Types for the vendored @preact/signals (ours, not from npm): `any`.
export const signal: any, computed: any, effect: any, batch: any, untracked: any, useSignal: any, useComputed: any,
  useSignalEffect: any, Signal: any, action: any, createModel: any, useModel: any;
