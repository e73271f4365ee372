"""The actor runtime, the floor of `actors/`: mailbox, turns with group commit, activation, deactivation,
directory, forwarding between nodes, and what a turn's commit needs around it (the event bus it publishes to,
the mapping of database failures to API errors, the clock).

It imports nothing else of `actors/`: the kernel (`actors/kernel/`: the node, its caches, the write path)
sits on it, and the domains sit on both. Arrows point one way, so the runtime can be read, tested and changed
without a domain or the kernel in mind."""
