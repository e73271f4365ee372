// Types for the vendored htm (ours, not from npm): `any`.
declare const htm: any;
export default htm;
