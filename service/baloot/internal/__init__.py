"""Generated code of the service's private messages; do not edit."""
