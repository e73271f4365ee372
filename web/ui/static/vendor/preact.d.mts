// Types for the vendored Preact (ours, not from npm): `any`, so tsc neither checks the minified module nor
// needs Preact's npm typings.
export const h: any, render: any, Fragment: any, createContext: any, createRef: any, createElement: any,
  cloneElement: any, createPortal: any, Component: any, options: any, toChildArray: any, hydrate: any, isValidElement: any;
