// The vendored modules under vendor/, by the names the import map gives them (the names they import each other
// by), typed `any` so that tsc neither checks their minified code nor needs their npm type packages.
declare module "preact";
declare module "preact/hooks";
declare module "htm";
declare module "@preact/signals";
declare module "@preact/signals-core";
declare module "socket.io-client";
