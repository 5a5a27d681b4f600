; Definitions: functions, classes and their methods, and functions bound to a name at the top of
; a module (`const f = () => …`, exported or not); other top-level bindings are constants.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(function_signature
  name: (identifier) @name) @definition.function

(method_signature
  name: (property_identifier) @name) @definition.method

(abstract_method_signature
  name: (property_identifier) @name) @definition.method

(internal_module
  name: (identifier) @name) @definition.module

(method_definition
  name: (property_identifier) @name) @definition.method

((lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression)]) @definition.function) @_declaration
  (#top-level? @_declaration))

((lexical_declaration
  (variable_declarator
    name: (identifier) @name) @definition.constant) @_declaration
  (#top-level? @_declaration))

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression)]) @definition.function))

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name) @definition.constant))

; References, most specific first: a call, a method call, `new`, a base class or interface, a
; type, a property, any other name.
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (member_expression
    property: (property_identifier) @name @reference.method))

(new_expression
  constructor: (identifier) @name @reference.call)

(extends_clause
  value: (identifier) @name @reference.inheritance)

(implements_clause
  (type_identifier) @name @reference.inheritance)

(extends_type_clause
  (type_identifier) @name @reference.inheritance)

(type_identifier) @name @reference.type

(member_expression
  property: (property_identifier) @name @reference.attribute)

(identifier) @name @reference.name
