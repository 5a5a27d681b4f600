; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (with their declared type as a hint), imports, and what stands before a name.

; Scopes. A type's or an object's body sees its members everywhere in it.
(class_definition) @scope
(object_definition) @scope
(trait_definition) @scope
(enum_definition) @scope
(package_object) @scope
(function_definition) @scope
(function_declaration) @scope
(given_definition) @scope
(extension_definition) @scope
(lambda_expression) @scope
(block) @scope
(indented_block) @scope
(for_expression) @scope
(case_clause) @scope

; Parameters, class parameters (fields), `val`s and `var`s with their declared type as a hint;
; without one, the call or the `new` that initializes them gives it.
(parameter
  name: (identifier) @local.param
  type: (_) @local.hint)
(parameter
  name: (identifier) @local.param)
(class_parameter
  name: (identifier) @local.let
  type: (_) @local.hint)
; A top-level `val` is a definition (tags.scm), bound by no scope of its own.
(block
  (val_definition
    pattern: (identifier) @local.let
    type: (_) @local.hint))
(block
  (var_definition
    pattern: (identifier) @local.let
    type: (_) @local.hint))
(block
  (val_definition
    pattern: (identifier) @local.let
    value: (call_expression
      function: [(identifier) (field_expression)] @local.hint.call)))
(block
  (val_definition
    pattern: (identifier) @local.let
    value: (instance_expression
      (type_identifier) @local.hint)))
(block
  (val_definition
    pattern: (identifier) @local.let))
(block
  (var_definition
    pattern: (identifier) @local.let))
(block
  (val_definition
    pattern: (tuple_pattern) @local.let))
(block
  (var_definition
    pattern: (tuple_pattern) @local.let))
(indented_block
  (val_definition
    pattern: (identifier) @local.let
    type: (_) @local.hint))
(indented_block
  (var_definition
    pattern: (identifier) @local.let
    type: (_) @local.hint))
(indented_block
  (val_definition
    pattern: (identifier) @local.let
    value: (call_expression
      function: [(identifier) (field_expression)] @local.hint.call)))
(indented_block
  (val_definition
    pattern: (identifier) @local.let
    value: (instance_expression
      (type_identifier) @local.hint)))
(indented_block
  (val_definition
    pattern: (identifier) @local.let))
(indented_block
  (var_definition
    pattern: (identifier) @local.let))
(indented_block
  (val_definition
    pattern: (tuple_pattern) @local.let))
(indented_block
  (var_definition
    pattern: (tuple_pattern) @local.let))
(template_body
  (val_definition
    pattern: (identifier) @local.let
    type: (_) @local.hint))
(template_body
  (var_definition
    pattern: (identifier) @local.let
    type: (_) @local.hint))
(template_body
  (val_definition
    pattern: (identifier) @local.let
    value: (call_expression
      function: [(identifier) (field_expression)] @local.hint.call)))
(template_body
  (val_definition
    pattern: (identifier) @local.let
    value: (instance_expression
      (type_identifier) @local.hint)))
(template_body
  (val_definition
    pattern: (identifier) @local.let))
(template_body
  (var_definition
    pattern: (identifier) @local.let))
(template_body
  (val_definition
    pattern: (tuple_pattern) @local.let))
(template_body
  (var_definition
    pattern: (tuple_pattern) @local.let))
(lambda_expression
  parameters: (identifier) @local.param)
(case_clause
  pattern: (identifier) @local.pattern)
(case_class_pattern
  pattern: (identifier) @local.pattern)
; `type Price = Double` names another type.
(type_definition
  name: (type_identifier) @local.let
  type: (type_identifier) @local.hint.alias)

; `package a.b` (the package's names are the file's) and `import a.b.C`, `import a.b._`,
; `import a.b.{C, D => E}`, `import a.b.given`.
(package_clause) @import
(import_declaration) @import

; What stands before a name: the receiver of `x.f()` and `x.p`.
(field_expression
  value: [(identifier) (field_expression) (call_expression) (instance_expression) (parenthesized_expression) (string)] @qualifier
  field: (identifier) @qualified)
