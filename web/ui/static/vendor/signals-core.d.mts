// Types for the vendored @preact/signals-core (ours, not from npm): `any`.
export const signal: any, computed: any, effect: any, batch: any, untracked: any, Signal: any, Computed: any,
  Effect: any, action: any, createModel: any;
