; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (with a type hint when one is evident), imports, and what stands before a selector.

; Scopes. The file is the outermost one; a package's other files are reached after it.
(function_declaration) @scope
(method_declaration) @scope
(func_literal) @scope
(block) @scope
(if_statement) @scope
(for_statement) @scope
(expression_switch_statement) @scope
(type_switch_statement) @scope
(select_statement) @scope
(expression_case) @scope
(type_case) @scope
(communication_case) @scope
(default_case) @scope
; A struct type's body holds its fields.
(type_spec type: (struct_type)) @scope

; A struct's named fields with their types: `s.db.Update()` is `DB.Update` when the struct
; declares `db *DB`.
(field_declaration name: (field_identifier) @local.field type: (_) @local.hint)

; Parameters and receivers, with their type as a hint.
(parameter_declaration name: (identifier) @local.param type: (_) @local.hint)
(variadic_parameter_declaration name: (identifier) @local.param)

; `x := Cart{…}`, `x := &Cart{…}`, `x := NewCart(…)` and `var x Cart` make the type evident.
(short_var_declaration left: (expression_list) @local.let)
(short_var_declaration
  left: (expression_list) @local.let
  right: (expression_list (composite_literal type: (_) @local.hint)))
(short_var_declaration
  left: (expression_list) @local.let
  right: (expression_list (unary_expression operand: (composite_literal type: (_) @local.hint))))
(short_var_declaration
  left: (expression_list) @local.let
  right: (expression_list (call_expression function: [(identifier) (selector_expression)] @local.hint.call)))
(statement_list (var_declaration (var_spec name: (identifier) @local.let)))
(statement_list (var_declaration (var_spec name: (identifier) @local.let type: (_) @local.hint)))
(statement_list (const_declaration (const_spec name: (identifier) @local.let)))

; Loops and type switches.
(range_clause left: (expression_list) @local.loop)
(type_switch_statement alias: (expression_list) @local.pattern)

(import_declaration) @import

; What stands before a name: the operand of `x.name`, the package of `pkg.Type`.
(selector_expression operand: (_) @qualifier field: (field_identifier) @qualified)
(qualified_type package: (package_identifier) @qualifier name: (type_identifier) @qualified)
