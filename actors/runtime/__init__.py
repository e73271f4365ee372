"""The actor runtime: mailbox, turns with group commit, activation, deactivation, directory."""
