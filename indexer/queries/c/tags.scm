; C's definitions and references; C++ shares them (`queries/cpp/` adds its own). A function
; is defined where its body is (a prototype is no definition); a typedef's name is its own
; definition, apart from the struct it may name.
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.class

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.class

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(type_definition
  declarator: (type_identifier) @name @definition.type)

(type_definition
  declarator: (pointer_declarator
    declarator: (type_identifier) @name @definition.type))

(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (type_identifier) @name @definition.type))))

; A macro with a value (a header guard has none).
(preproc_def
  name: (identifier) @name
  value: (preproc_arg)) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

(enumerator
  name: (identifier) @name) @definition.constant

((declaration
  declarator: (init_declarator
    declarator: (identifier) @name)) @definition.constant
  (#top-level? @definition.constant))

; References, most specific first: a call, a call through a field (a function pointer), a
; type, a field, any other name.
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (field_expression
    field: (field_identifier) @name @reference.method))

(type_identifier) @name @reference.type

(field_expression
  field: (field_identifier) @name @reference.attribute)

(identifier) @name @reference.name
