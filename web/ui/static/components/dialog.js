// A modal dialog on the native <dialog> element: the browser traps focus, Escape closes it, and focus goes
// back to what opened it. The dialog is named by its heading.
import { html, useRef, useEffect, useId } from "../lib.js";

export function Dialog({ open, title, onClose, children, wide = false }) {
  const dialog = useRef(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return html`<dialog ref=${dialog} class=${`dialog${wide ? " dialog--wide" : ""}`} aria-labelledby=${titleId}
      onClose=${() => onClose?.()} onCancel=${() => onClose?.()}>
    ${open && html`<div class="dialog__body">
      <h2 id=${titleId} class="dialog__title">${title}</h2>
      ${children}
    </div>`}
  </dialog>`;
}

/** Ask before something that cannot be undone; answers through onConfirm / onClose. */
export function ConfirmDialog({ open, title, message, confirmLabel, cancelLabel, onConfirm, onClose, busy }) {
  return html`<${Dialog} open=${open} title=${title} onClose=${onClose}>
    <p>${message}</p>
    <div class="button-row">
      <button type="button" class="button button--danger" disabled=${busy} onClick=${onConfirm}>${confirmLabel}</button>
      <button type="button" class="button button--secondary" onClick=${onClose}>${cancelLabel}</button>
    </div>
  <//>`;
}
