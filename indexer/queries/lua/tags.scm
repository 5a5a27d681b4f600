; Definitions. Functions however written: `function f`, `local function f`, `function M.f`
; (`f` in the table `M`), `function Cart:total` (a method), `M.f = function`, `local f =
; function`, and a function in a table's constructor (`{ add = function(self) … end }`). A
; table the file itself makes (`local M = {}`, `Cart = {}`) is a module, a class when its name
; is capitalised (`Cart`); a file's own all-capitals names (`local TAX = 20`) are constants.
(function_declaration
  name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression
    field: (identifier) @name)) @definition.function

(function_declaration
  name: (method_index_expression
    method: (identifier) @name)) @definition.method

(assignment_statement
  (variable_list
    name: (dot_index_expression
      field: (identifier) @name))
  (expression_list
    value: (function_definition))) @definition.function

(variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @name)
    (expression_list
      value: (function_definition)))) @definition.function

((assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: (function_definition))) @definition.function
  (#top-level? @definition.function))

(field
  name: (identifier) @name
  value: (function_definition)) @definition.function

((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @name)
    (expression_list
      value: (table_constructor)))) @definition.module
  (#top-level? @definition.module))

((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @name)
    (expression_list
      value: (table_constructor)))) @definition.class
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z]")
  (#top-level? @definition.class))

((assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: (table_constructor))) @definition.module
  (#top-level? @definition.module))

((assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: (table_constructor))) @definition.class
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z]")
  (#top-level? @definition.class))

; A table made with a metatable (`local VipCart = setmetatable({}, { __index = Cart })`) is one
; too, and the table its metatable's `__index` names is its base.
((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @name)
    (expression_list
      value: (function_call
        name: (identifier) @_set)))) @definition.module
  (#eq? @_set "setmetatable")
  (#top-level? @definition.module))

((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @name)
    (expression_list
      value: (function_call
        name: (identifier) @_set)))) @definition.class
  (#eq? @_set "setmetatable")
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z]")
  (#top-level? @definition.class))

((assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: (function_call
      name: (identifier) @_set))) @definition.module
  (#eq? @_set "setmetatable")
  (#top-level? @definition.module))

((assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: (function_call
      name: (identifier) @_set))) @definition.class
  (#eq? @_set "setmetatable")
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z]")
  (#top-level? @definition.class))

((variable_declaration
  (assignment_statement
    (variable_list
      name: (identifier) @name)
    (expression_list
      value: [(number) (string) (true) (false)]))) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#top-level? @definition.constant))

((assignment_statement
  (variable_list
    name: (identifier) @name)
  (expression_list
    value: [(number) (string) (true) (false)])) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#top-level? @definition.constant))

; References: the table a metatable's `__index` names is a base of the table being made; a
; table constructor's key names a field, nothing to look up.
((function_call
  name: (identifier) @_set
  arguments: (arguments
    (table_constructor
      (field
        name: (identifier) @_index
        value: (identifier) @name @reference.inheritance))))
  (#eq? @_set "setmetatable")
  (#eq? @_index "__index"))

(field
  name: (identifier) @name @reference.attribute)

; References: a call of a bare name, a call through a table (`cart.total()`, `cart:total()`,
; both method calls whose qualifier is the table), a field read through a table (`M.TAX`), and
; any other name.
(function_call
  name: (identifier) @name @reference.call)

(function_call
  name: (dot_index_expression
    field: (identifier) @name @reference.method))

(function_call
  name: (method_index_expression
    method: (identifier) @name @reference.method))

(dot_index_expression
  field: (identifier) @name @reference.attribute)

(identifier) @name @reference.name
