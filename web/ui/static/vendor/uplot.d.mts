// Types for the vendored uPlot (ours, not from npm): `any`.
declare const uPlot: any;
export default uPlot;
