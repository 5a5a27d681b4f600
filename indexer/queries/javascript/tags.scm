; Definitions: functions, classes and their methods, and functions bound to a name at the top of
; a module (`const f = () => …`, exported or not); other top-level bindings are constants.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (identifier) @name) @definition.class

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

; References, most specific first: a call, a method call, `new`, a base class, a property, any
; other name.
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (member_expression
    property: (property_identifier) @name @reference.method))

(new_expression
  constructor: (identifier) @name @reference.call)

(class_heritage
  (identifier) @name @reference.inheritance)

(member_expression
  property: (property_identifier) @name @reference.attribute)

(identifier) @name @reference.name
