; What name resolution needs: a function's body is a scope; `local` and `declare` bind in it,
; a file's own assignments and `for` variables bind where they stand; `source f` and `. f` load
; another file (decoded as a glob import of it).
(function_definition) @scope

(declaration_command
  (variable_assignment
    name: (variable_name) @local.let))
(declaration_command
  (variable_name) @local.let)

((variable_assignment
  name: (variable_name) @local.assign) @_assignment
  (#top-level? @_assignment))

(for_statement
  variable: (variable_name) @local.loop)

((command
  name: (command_name
    (word) @_load)) @import
  (#match? @_load "^(source|\\.)$"))
