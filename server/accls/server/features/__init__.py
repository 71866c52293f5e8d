"""One module per LSP method group; each has a `register(server)`."""
