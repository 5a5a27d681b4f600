; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (with their declared type as a hint), imports, and what stands before a name.

; Scopes. A type's body sees its members, fields and nested types everywhere in it; a namespace
; is no scope (its types are the package's).
(class_declaration) @scope
(struct_declaration) @scope
(record_declaration) @scope
(interface_declaration) @scope
(enum_declaration) @scope
(method_declaration) @scope
(constructor_declaration) @scope
(local_function_statement) @scope
(lambda_expression) @scope
(anonymous_method_expression) @scope
(accessor_declaration) @scope
(block) @scope
(for_statement) @scope
(foreach_statement) @scope
(catch_clause) @scope
(using_statement) @scope
(switch_section) @scope

; Parameters, variables and fields with their declared type as a hint (`var` has
; none: the `new` or the call that initializes it gives it).
(parameter type: (_) @local.hint name: (identifier) @local.param)
(parameter name: (identifier) @local.param)
(lambda_expression parameters: (implicit_parameter) @local.param)
(variable_declaration
  type: (_) @local.hint
  (variable_declarator name: (identifier) @local.let))
(variable_declarator
  name: (identifier) @local.let
  (object_creation_expression type: (_) @local.hint))
(variable_declarator
  name: (identifier) @local.let
  (invocation_expression function: (_) @local.hint.call))
(foreach_statement type: (_) @local.hint left: (identifier) @local.loop)
(catch_declaration type: (_) @local.hint name: (identifier) @local.param)
(declaration_pattern type: (_) @local.hint name: (identifier) @local.pattern)

; `namespace A.B` (the namespace's names are the file's), `using A.B;`, `using X = A.B.C;`.
(namespace_declaration name: (_) @import)
(file_scoped_namespace_declaration name: (_) @import)
(using_directive) @import

; What stands before a name: the object of `x.M()` and `x.F` (the whole access is captured,
; since `this` and `base` are no named nodes: the qualifier is its `expression`), the outer type
; of `Outer.Inner`, the namespace of a qualified name, the object of `x?.M()`.
(member_access_expression name: (identifier) @qualified) @qualifier
(member_access_expression name: (generic_name (identifier) @qualified)) @qualifier
(qualified_name qualifier: (_) @qualifier name: (identifier) @qualified)
(conditional_access_expression
  condition: (_) @qualifier
  (member_binding_expression name: (identifier) @qualified))
