; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (with their declared type as a hint), imports, and what stands before a name.

; Scopes. A type's body sees its members, fields and nested types everywhere in it.
(class_declaration) @scope
(record_declaration) @scope
(interface_declaration) @scope
(enum_declaration) @scope
(annotation_type_declaration) @scope
(object_creation_expression (class_body) @scope)
(method_declaration) @scope
(constructor_declaration) @scope
(compact_constructor_declaration) @scope
(lambda_expression) @scope
(block) @scope
(for_statement) @scope
(enhanced_for_statement) @scope
(catch_clause) @scope
(try_with_resources_statement) @scope
(switch_block_statement_group) @scope

; Parameters, variables and fields with their declared type as a hint (`var` has none: the
; `new` that initializes it gives it).
(formal_parameter type: (_) @local.hint name: (identifier) @local.param)
(spread_parameter (variable_declarator name: (identifier) @local.param))
(catch_formal_parameter name: (identifier) @local.param)
(lambda_expression parameters: (identifier) @local.param)
(inferred_parameters (identifier) @local.param)
(local_variable_declaration
  type: (_) @local.hint
  declarator: (variable_declarator name: (identifier) @local.let))
(local_variable_declaration
  declarator: (variable_declarator
    name: (identifier) @local.let
    value: (object_creation_expression type: (_) @local.hint)))
(field_declaration
  type: (_) @local.hint
  declarator: (variable_declarator name: (identifier) @local.let))
(resource type: (_) @local.hint name: (identifier) @local.let)
(enhanced_for_statement type: (_) @local.hint name: (identifier) @local.loop)
(instanceof_expression right: (_) @local.hint name: (identifier) @local.pattern)

; `package a.b;` (the package's names are the file's) and `import a.b.C;`.
(package_declaration) @import
(import_declaration) @import

; What stands before a name: the object of `x.m()` and `x.f`, the type of `T::m`, the outer
; type of `Outer.Inner`, the package of a qualified name.
(method_invocation object: (_) @qualifier name: (identifier) @qualified)
(field_access object: (_) @qualifier field: (identifier) @qualified)
(method_reference (_) @qualifier (identifier) @qualified)
(scoped_type_identifier (_) @qualifier (type_identifier) @qualified)
(scoped_identifier scope: (_) @qualifier name: (identifier) @qualified)
