; Definitions. A declaration at the top of a file or in a container's body (`struct`, `enum`,
; `union`, `opaque`) names a type when its value is a container, else a constant (`@import`s are
; imports, not definitions); a `fn` is a function, a method inside a container (the extractor
; decides); `test "name" { … }` is a test function named by its string. The grammar has no field
; for a declaration's name: it is the identifier before the type (`const n: T = …`) or, untyped,
; the one before the value. An enum's values are its constants; other containers' fields are
; bindings (names.scm).
((variable_declaration
  (identifier) @name
  [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.class
  (#top-level? @definition.class))

(struct_declaration
  (variable_declaration
    (identifier) @name
    [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.class)

(union_declaration
  (variable_declaration
    (identifier) @name
    [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.class)

((variable_declaration
  (identifier) @name
  [(enum_declaration) (error_set_declaration)]) @definition.enum
  (#top-level? @definition.enum))

(struct_declaration
  (variable_declaration
    (identifier) @name
    [(enum_declaration) (error_set_declaration)]) @definition.enum)

((variable_declaration
  (identifier) @name
  type: (_)) @definition.constant
  (#top-level? @definition.constant))

((variable_declaration
  !type
  (identifier) @name
  (_) @_value) @definition.constant
  (#match? @_value "^([^@]|@[^i]|@i[^m])")
  (#top-level? @definition.constant))

(struct_declaration
  (variable_declaration
    (identifier) @name
    type: (_)) @definition.constant)

((struct_declaration
  (variable_declaration
    !type
    (identifier) @name
    (_) @_value) @definition.constant)
  (#match? @_value "^([^@]|@[^i]|@i[^m])"))

(enum_declaration
  (variable_declaration
    !type
    (identifier) @name
    (_)) @definition.constant)

(union_declaration
  (variable_declaration
    !type
    (identifier) @name
    (_)) @definition.constant)

(enum_declaration
  (container_field
    name: (identifier) @name) @definition.constant)

(function_declaration
  name: (identifier) @name) @definition.function

(test_declaration
  (string
    (string_content) @name)) @definition.function

; References, most specific first: a call of a name, a call through a qualifier
; (`pricing.apply_discount(…)`, `cart.total()`), a type where a parameter or a return is
; annotated, a member (`pricing.Discount`, a field), any other name; `test total { … }` names
; what it tests.
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (field_expression
    member: (identifier) @name @reference.method))

(parameter
  type: (identifier) @name @reference.type)

(parameter
  type: (pointer_type
    (identifier) @name @reference.type))

(function_declaration
  type: (identifier) @name @reference.type)

(variable_declaration
  type: (identifier) @name @reference.type)

(error_union_type
  ok: (identifier) @name @reference.type)

(struct_initializer
  (identifier) @name @reference.type)

(field_expression
  member: (identifier) @name @reference.attribute)

(identifier) @name @reference.name
