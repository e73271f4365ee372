"""The browser front end: small self-contained pages served on the organization's host,
each a template next to the module that serves it."""
