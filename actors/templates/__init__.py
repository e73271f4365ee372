"""Board templates (domain 4.13): vendor templates, the organization's own, and building boards from them."""
