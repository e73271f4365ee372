"""The contract: wire types, procedure declarations, errors, ids, timestamps and cursors.

Nothing in this package imports another Obeya package.
"""
