"""PostgreSQL: the pool, numbered SQL migrations, one repository module per aggregate, the event log.

Every repository function takes the organization id it is scoped to; storage imports only protocol.
"""
