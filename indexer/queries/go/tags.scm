; Definitions. A method's qualified name takes its receiver's type (`Cart.Add`); an
; interface's methods sit inside its type, so they are qualified by it.
(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.class

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

(method_elem
  name: (field_identifier) @name) @definition.method

; Package-level constants and variables (a function's own are bindings, in names.scm).
((const_declaration
  (const_spec
    name: (identifier) @name) @definition.constant) @_declaration
  (#top-level? @_declaration))

((var_declaration
  (var_spec
    name: (identifier) @name) @definition.constant) @_declaration
  (#top-level? @_declaration))

((var_declaration
  (var_spec_list
    (var_spec
      name: (identifier) @name) @definition.constant)) @_declaration
  (#top-level? @_declaration))

; References, most specific first: a call, a call through a selector (a method, or a
; package's function), an embedded interface, a type, a field or package member, any other name.
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (selector_expression
    field: (field_identifier) @name @reference.method))

(interface_type
  (type_elem
    (type_identifier) @name @reference.inheritance))

(type_identifier) @name @reference.type

(selector_expression
  field: (field_identifier) @name @reference.attribute)

(qualified_type
  package: (package_identifier) @name @reference.name)

(identifier) @name @reference.name
