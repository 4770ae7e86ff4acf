"""Generated code of the public contract in proto/baloot; do not edit."""
