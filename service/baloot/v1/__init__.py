"""Generated code of the baloot.v1 contract; regenerate with `make gen`."""
