"""The private state message sealed inside state tokens; not a contract."""
