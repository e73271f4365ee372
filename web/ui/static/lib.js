// The one place screens get their view library from: Preact with htm templates (no build step) and
// signals for state that several components read. Screens import from here, never from vendor/.
import { h, render, Fragment, createContext, createRef } from "./vendor/preact.mjs";
import {
  useState, useEffect, useRef, useMemo, useCallback, useLayoutEffect, useContext, useId, useReducer,
} from "./vendor/hooks.mjs";
import htm from "./vendor/htm.mjs";
import {
  signal, computed, effect, batch, untracked, useSignal, useComputed, useSignalEffect,
} from "./vendor/signals.mjs";

/** Tagged template producing Preact elements: html`<p>${text}</p>`. */
export const html = htm.bind(h);
export {
  h, render, Fragment, createContext, createRef,
  useState, useEffect, useRef, useMemo, useCallback, useLayoutEffect, useContext, useId, useReducer,
  signal, computed, effect, batch, untracked, useSignal, useComputed, useSignalEffect,
};
