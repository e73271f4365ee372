// Text the credential sections share: statuses, dates, the expiry day and the box a new secret is shown in.
export default {
  "status.active": "Active",
  "status.revoked": "Revoked",
  "status.expired": "Expired",
  created: "Created",
  lastUsed: "Last used",
  expires: "Expires",
  never: "Never",
  copy: "Copy",
  copied: "Copied to the clipboard.",
  copyFailed: "This browser did not copy it: select the text and copy it.",
  done: "Done: I have copied it",
  understood: "Understood",
  secretWarning: "Copy it now: it is shown only once. If you lose it, make a new one.",
  expiryDay: "Expires on (optional)",
  expiryDayHint: "It stops working at the end of that day. Leave empty for no expiry.",
  expiryPast: "Enter a day after today",
};
