; What name resolution needs besides definitions and references: scopes, the names each scope
; binds (`local c = Cart.new()` hints an instance of `Cart`), what stands before a name, what a
; file loads (`require`) and what it returns (`return M`: what `require` gives).

; Scopes: functions, loops and blocks (`local` binds to the end of its block).
(function_declaration) @scope
(function_definition) @scope
(for_statement) @scope
(while_statement) @scope
(repeat_statement) @scope
(do_statement) @scope
(if_statement) @scope

; Parameters, locals (`local x`, `local a, b = …`), loop variables, and the names the file's
; own statements assign (globals).
(parameters
  name: (identifier) @local.param)

(variable_declaration
  (variable_list
    name: (identifier) @local.let))

(variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @local.let)))

(for_generic_clause
  (variable_list
    name: (identifier) @local.loop))

(for_numeric_clause
  name: (identifier) @local.loop)

((assignment_statement
  (variable_list
    name: (identifier) @local.assign)) @_assignment
  (#top-level? @_assignment))

; Evident values: `Cart.new(…)` and `Cart:new(…)` an instance of `Cart`, as is
; `setmetatable({…}, Cart)`; `local b = a` another name for `a`.
((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @local.let)
    (expression_list
      value: (function_call
        name: (dot_index_expression
          table: [(identifier) (dot_index_expression)] @local.hint.call
          field: (identifier) @_new)))))
  (#eq? @_new "new"))

((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @local.let)
    (expression_list
      value: (function_call
        name: (method_index_expression
          table: [(identifier) (dot_index_expression)] @local.hint.call
          method: (identifier) @_new)))))
  (#eq? @_new "new"))

((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @local.let)
    (expression_list
      value: (function_call
        name: (identifier) @_set
        arguments: (arguments
          (table_constructor)
          (identifier) @local.hint.call)))))
  (#eq? @_set "setmetatable"))

(variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @local.let)
    (expression_list
      value: (identifier) @local.hint.alias)))

; What stands before a name: the table of `t.f` and `t:f`.
(dot_index_expression
  table: (_) @qualifier
  field: (identifier) @qualified)

(method_index_expression
  table: (_) @qualifier
  method: (identifier) @qualified)

; Loads: `require("shop.cart")` and `require "shop.cart"`; `local cart = require(…)` binds
; `cart` to what the module returns.
((function_call
  name: (identifier) @_load
  arguments: (arguments
    (string))) @import
  (#eq? @_load "require"))

; What the file returns: `return M` at its end.
(chunk
  (return_statement
    (expression_list
      (identifier) @exports)))
