; What name resolution needs: scopes (a type's body sees its members everywhere in it), the
; names each scope binds with their declared type or initializer as a hint, imports, and what
; stands before a member's name.

(class_declaration) @scope
(protocol_declaration) @scope
(function_declaration) @scope
(init_declaration) @scope
(deinit_declaration) @scope
(computed_property) @scope
(lambda_literal) @scope
(for_statement) @scope
(if_statement) @scope
(while_statement) @scope
(catch_block) @scope
(switch_entry) @scope

; Parameters, with their type as a hint.
(parameter
  name: (simple_identifier) @local.param)
(parameter
  name: (simple_identifier) @local.param
  [(user_type) (optional_type)] @local.hint)
(lambda_parameter
  name: (simple_identifier) @local.param)
(lambda_parameter
  name: (simple_identifier) @local.param
  [(user_type) (optional_type)] @local.hint)

; `let`/`var` (a type's stored properties too): the annotation, else the initializer's callee
; (`let cart = Cart()`), else another name (`let c = cart`) says what it holds.
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @local.let))
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @local.let)
  (type_annotation
    [(user_type) (optional_type)] @local.hint))
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @local.let)
  value: (call_expression
    [(simple_identifier) (navigation_expression)] @local.hint.call))
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @local.let)
  value: [(simple_identifier) (navigation_expression)] @local.hint.alias)

; `if let x = …`, `guard let x = …` (in the scope around it), `for x in …`.
(if_statement
  bound_identifier: (simple_identifier) @local.let)
(guard_statement
  bound_identifier: (simple_identifier) @local.let)
(for_statement
  item: (pattern
    bound_identifier: (simple_identifier) @local.loop))

(import_declaration) @import

; What stands before a member's name: `cart` in `cart.total()`, `self`, `super`, `Cart`.
(navigation_expression
  target: (_) @qualifier
  suffix: (navigation_suffix
    suffix: (simple_identifier) @qualified))

; An argument's label names the parameter of the function called: `applyDiscount(raw, code: c)`.
(call_expression
  (_) @qualifier
  (call_suffix
    (value_arguments
      (value_argument
        name: (value_argument_label
          (simple_identifier) @qualified.argument)))))
