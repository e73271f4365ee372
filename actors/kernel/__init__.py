"""The kernel: what every service is handed (the node, actors/kernel/node.py) with its settings and caches, the
one write path, authorization, idempotency, the background workers' supervisor and leadership.

It sits on the actor runtime (actors/runtime/), which never imports it, and imports no domain: what a domain
needs the node to carry is plugged in by the server (actors/kernel/plugins.py, server/node_services.py).
"""
