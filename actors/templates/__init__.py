"""Board templates: vendor templates, the organization's own, and building boards from them."""
