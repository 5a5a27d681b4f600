; Definitions. Members are qualified by the types and objects around them (`Cart.empty`); a
; companion `object Cart` and its `class Cart` are two definitions of one name, whose members
; the resolver looks up in both. A trait is an interface, a Scala 3 enum an enum and its cases
; constants; `given`s, top-level `val`s and `var`s and an object's are constants.
(class_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.interface

(object_definition
  name: (identifier) @name) @definition.class

(package_object
  name: (identifier) @name) @definition.module

(enum_definition
  name: (identifier) @name) @definition.enum

(simple_enum_case
  name: (identifier) @name) @definition.constant

(full_enum_case
  name: (identifier) @name) @definition.constant

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(given_definition
  name: (identifier) @name) @definition.constant

(type_definition
  name: (type_identifier) @name) @definition.type

(compilation_unit
  (val_definition
    pattern: (identifier) @name) @definition.constant)

(compilation_unit
  (var_definition
    pattern: (identifier) @name) @definition.constant)

(object_definition
  body: (template_body
    (val_definition
      pattern: (identifier) @name) @definition.constant))

(package_object
  body: (template_body
    (val_definition
      pattern: (identifier) @name) @definition.constant))

; References, most specific first: a capitalised call through a receiver (`Shop.Cart(…)`), a
; call through a receiver, a bare call (a function's, or a case class's `Item(…)`), `new Cart(…)`,
; an import's names, a base type, a type, a member access, any other name. A receiver is one of
; the expressions listed, not `(_)`, which in tack's matcher also matches an ERROR node.
((call_expression
  function: (field_expression
    value: [(identifier) (field_expression) (call_expression) (instance_expression) (parenthesized_expression) (string)]
    field: (identifier) @name @reference.call))
  (#match? @name "^[A-Z]"))

(call_expression
  function: (field_expression
    value: [(identifier) (field_expression) (call_expression) (instance_expression) (parenthesized_expression) (string)]
    field: (identifier) @name @reference.method))

(call_expression
  function: (identifier) @name @reference.call)

(instance_expression
  (type_identifier) @name @reference.call)

(import_declaration
  (identifier) @name @reference.import)

(namespace_selectors
  (identifier) @name @reference.import)

(arrow_renamed_identifier
  name: (identifier) @name @reference.import)

(as_renamed_identifier
  name: (identifier) @name @reference.import)

(extends_clause
  (type_identifier) @name @reference.inheritance)

(extends_clause
  (generic_type
    type: (type_identifier) @name @reference.inheritance))

(type_identifier) @name @reference.type

(field_expression
  value: [(identifier) (field_expression) (call_expression) (instance_expression) (parenthesized_expression) (string)]
  field: (identifier) @name @reference.attribute)

(identifier) @name @reference.name
