"""The board actor: a board's groups, columns, items and comments."""
