// Types for the vendored preact/hooks (ours, not from npm): `any`.
export const useState: any, useEffect: any, useRef: any, useMemo: any, useCallback: any, useLayoutEffect: any,
  useContext: any, useId: any, useReducer: any, useErrorBoundary: any, useImperativeHandle: any, useDebugValue: any;
