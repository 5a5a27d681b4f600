; Scopes, bindings and imports.
