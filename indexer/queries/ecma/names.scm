; What JavaScript and TypeScript share of what name resolution needs (each language's own file
; adds its parameters and more): scopes, the names each scope binds (with the class of a `new`, a
; callee or another name as a hint), imports and re-exports, and what stands before a property.

; Scopes. The module is the outermost one.
(function_declaration) @scope
(generator_function_declaration) @scope
(function_expression) @scope
(arrow_function) @scope
(method_definition) @scope
(class_declaration) @scope
(statement_block) @scope
(for_statement) @scope
(for_in_statement) @scope
(catch_clause) @scope

; A lone arrow-function parameter (the languages' own files have the rest).
(arrow_function parameter: (identifier) @local.param)

; `let`, `const` and `var`; `new Cart()` makes the class evident, `f()` its result's type, and
; `x = other` names another.
(variable_declarator name: (_) @local.let)
(variable_declarator
  name: (identifier) @local.let
  value: (new_expression constructor: (identifier) @local.hint))
(variable_declarator
  name: (identifier) @local.let
  value: (identifier) @local.hint.alias)
(variable_declarator
  name: (identifier) @local.let
  value: (call_expression function: [(identifier) (member_expression)] @local.hint.call))

(for_in_statement left: (_) @local.loop)
(catch_clause parameter: (_) @local.except)

; Imports, re-exports (`export … from`) and CommonJS `require`.
(import_statement) @import
(export_statement source: (_)) @import
((variable_declarator
  value: (call_expression
    function: (identifier) @_require)) @import
  (#eq? @_require "require"))

; What stands before a name: the object of `a.b`.
(member_expression object: (_) @qualifier property: (property_identifier) @qualified)
