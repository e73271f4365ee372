"""The composition root: configuration, the `obeya` CLI, logging set-up, building the aiohttp app and
the order in which resources start and stop, and the embedded PostgreSQL of the default run."""
