; What JavaScript and TypeScript share (each language's own file adds the rest). Definitions:
; functions, methods, and functions bound to a name at the top of a module (`const f = () => …`,
; exported or not); other top-level bindings are constants.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

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

; References: a call, a method call, `new`, a property, any other name (the extractor keeps the
; most specific kind an identifier matches).
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (member_expression
    property: (property_identifier) @name @reference.method))

(new_expression
  constructor: (identifier) @name @reference.call)

(member_expression
  property: (property_identifier) @name @reference.attribute)

(identifier) @name @reference.name
