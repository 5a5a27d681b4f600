; C++'s own definitions and references; `queries/c/tags.scm` has the shared ones. A method is
; defined in its class's body or out of it (`void Cart::add(…)`, qualified by its class).
(function_definition
  declarator: (function_declarator
    declarator: (field_identifier) @name)) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      name: (identifier) @name))) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (destructor_name) @name)) @definition.method

(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      name: (destructor_name) @name))) @definition.method

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (field_identifier) @name))) @definition.method

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (qualified_identifier
        name: (identifier) @name)))) @definition.method

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [(identifier) (field_identifier)] @name))) @definition.function

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: (qualified_identifier
        name: (identifier) @name)))) @definition.method

; Methods declared in a class body and defined elsewhere; constructors.
(field_declaration
  declarator: (reference_declarator
    (function_declarator
      declarator: (field_identifier) @name))) @definition.method

(field_declaration
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (field_identifier) @name))) @definition.method

(field_declaration_list
  (declaration
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.method)

(field_declaration
  declarator: (function_declarator
    declarator: (field_identifier) @name)) @definition.method

(class_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.class

(namespace_definition
  name: (namespace_identifier) @name) @definition.module

(alias_declaration
  name: (type_identifier) @name) @definition.type

; Bases, `new`, calls through a path or with template arguments, a namespace's name.
(base_class_clause
  (type_identifier) @name @reference.inheritance)

(base_class_clause
  (qualified_identifier
    name: (type_identifier) @name @reference.inheritance))

(base_class_clause
  (template_type
    name: (type_identifier) @name @reference.inheritance))

(new_expression
  type: (type_identifier) @name @reference.call)

(call_expression
  function: (qualified_identifier
    name: (identifier) @name @reference.call))

(call_expression
  function: (template_function
    name: (identifier) @name @reference.call))

(namespace_identifier) @name @reference.name
