"""The behaviour: the actor runtime, the domain actors, the services for the rest of the domain, and the
event consumers. Every procedure declared in `protocol/` is implemented once here."""
