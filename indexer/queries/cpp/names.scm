; C++'s scopes and bindings beyond C's, and what stands before a name in a path.
(class_specifier) @scope
(struct_specifier body: (_)) @scope
(namespace_definition) @scope
(lambda_expression) @scope
(for_range_loop) @scope

(parameter_declaration
  type: (_) @local.hint
  declarator: (reference_declarator (identifier) @local.param))
(optional_parameter_declaration
  type: (_) @local.hint
  declarator: (identifier) @local.param)
(for_range_loop
  type: (_) @local.hint
  declarator: (identifier) @local.loop)
(for_range_loop
  type: (_) @local.hint
  declarator: (reference_declarator (identifier) @local.loop))

(qualified_identifier scope: (_) @qualifier name: (_) @qualified)
