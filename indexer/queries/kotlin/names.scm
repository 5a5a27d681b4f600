; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (with their declared type as a hint), imports, and what stands before a name.

; Scopes. A type's body sees its members, properties and nested types everywhere in it; a
; companion object is no scope of its own (its members are its class's).
(class_declaration) @scope
(object_declaration) @scope
(function_declaration) @scope
(secondary_constructor) @scope
(getter) @scope
(setter) @scope
(anonymous_function) @scope
(lambda_literal) @scope
(block) @scope
(for_statement) @scope
(catch_block) @scope
(when_entry) @scope

; Parameters, properties and variables with their declared type as a hint; without one, the call
; that initializes them gives it (`val cart = Cart(owner)`, `val c = Cart.create(owner)`).
(parameter
  (identifier) @local.param
  [(user_type) (nullable_type)] @local.hint)
(class_parameter
  (identifier) @local.let
  [(user_type) (nullable_type)] @local.hint)
(property_declaration
  (variable_declaration
    (identifier) @local.let
    [(user_type) (nullable_type)] @local.hint))
(property_declaration
  (variable_declaration
    (identifier) @local.let)
  (call_expression
    [(identifier) (navigation_expression)] @local.hint.call))
(property_declaration
  (variable_declaration
    (identifier) @local.let))
(property_declaration
  (multi_variable_declaration
    (variable_declaration
      (identifier) @local.let)))
(for_statement
  (variable_declaration
    (identifier) @local.loop))
(for_statement
  (multi_variable_declaration
    (variable_declaration
      (identifier) @local.loop)))
(lambda_parameters
  (variable_declaration
    (identifier) @local.param))
(catch_block
  (identifier) @local.param
  (user_type) @local.hint)
; `typealias A = B` names another type.
(type_alias
  type: (identifier) @local.let
  (user_type) @local.hint.alias)

; `package a.b` (the package's names are the file's) and `import a.b.C`, `import a.b.*`,
; `import a.b.C as D`.
(package_header) @import
(import) @import

; What stands before a name: the receiver of `x.f()` and `x.p`, the outer type of `Outer.Inner`.
(navigation_expression
  [(identifier) (navigation_expression) (call_expression) (this_expression) (super_expression) (parenthesized_expression) (index_expression) (string_literal)] @qualifier
  (identifier) @qualified)
(user_type
  (identifier) @qualifier
  (identifier) @qualified)
