"""jaxcfr.base."""
