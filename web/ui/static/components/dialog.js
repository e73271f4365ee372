// A modal dialog on the native <dialog> element: the browser traps focus, Escape closes it, and focus goes
// back to what opened it, or to `focusAfter` when that is gone (the row whose "Delete" opened it was
// deleted). The dialog is named by its heading.
import { html, useRef, useEffect, useId } from "../lib.js";

/**
 * `onClose` runs once when the person closes the dialog (Escape, or a form of method "dialog"), never when the
 * parent closed it by setting `open` false. `focusAfter` is a ref to what takes focus when the opener is gone.
 */
export function Dialog({ open, title, onClose, children, wide = false, focusAfter }) {
  const dialog = useRef(null);
  const titleId = useId();
  const wanted = useRef(open);
  wanted.current = open;
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  const closed = () => {
    const focused = document.activeElement;
    if (!focused || focused === document.body || dialog.current?.contains(focused)) focusAfter?.current?.focus();
    if (wanted.current) onClose?.();
  };
  return html`<dialog ref=${dialog} class=${`dialog${wide ? " dialog--wide" : ""}`} aria-labelledby=${titleId}
      onClose=${closed}>
    ${open && html`<div class="dialog__body">
      <h2 id=${titleId} class="dialog__title">${title}</h2>
      ${children}
    </div>`}
  </dialog>`;
}

/** Ask before something that cannot be undone; answers through onConfirm / onClose. */
export function ConfirmDialog({ open, title, message, confirmLabel, cancelLabel, onConfirm, onClose, busy, focusAfter }) {
  return html`<${Dialog} open=${open} title=${title} onClose=${onClose} focusAfter=${focusAfter}>
    <p>${message}</p>
    <div class="button-row">
      <button type="button" class="button button--danger" disabled=${busy} onClick=${onConfirm}>${confirmLabel}</button>
      <button type="button" class="button button--secondary" onClick=${onClose}>${cancelLabel}</button>
    </div>
  <//>`;
}
