; What name resolution needs besides definitions and references (C, and C++ before
; `queries/cpp/names.scm`): scopes, parameters and variables with their declared type, includes,
; and what stands before a field.
(function_definition) @scope
(compound_statement) @scope
(for_statement) @scope

(parameter_declaration
  type: (_) @local.hint
  declarator: (identifier) @local.param)
(parameter_declaration
  type: (_) @local.hint
  declarator: (pointer_declarator declarator: (identifier) @local.param))
(declaration
  type: (_) @local.hint
  declarator: (identifier) @local.let)
(declaration
  type: (_) @local.hint
  declarator: (init_declarator declarator: (identifier) @local.let))
(declaration
  type: (_) @local.hint
  declarator: (pointer_declarator declarator: (identifier) @local.let))
(declaration
  type: (_) @local.hint
  declarator: (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.let)))

(preproc_include) @import

(field_expression argument: (_) @qualifier field: (field_identifier) @qualified)
