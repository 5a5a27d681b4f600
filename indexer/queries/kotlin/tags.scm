; Definitions. Nested types and members are qualified by the types around them (`Cart.Line`).
; kotlin-ng marks a class, an interface and an enum class alike (`class_declaration`, the keyword
; an unnamed node), so the text before the name tells them apart: the class pattern leaves out
; `enum class` and `interface`, whose patterns follow. A companion object is no definition: its
; members are its class's (`Cart.create()`). An extension function (`fun Cart.discounted()`) is
; qualified by its receiver's type (`container_name`).
((class_declaration
  name: (identifier) @name) @definition.class
  (#match? @definition.class "^(@[A-Za-z_.]+(\\([^)]*\\))?\\s+|([a-df-z][a-z]*|e|e[a-mo-z][a-z]*|en|en[a-tv-z][a-z]*|enu|enu[a-ln-z][a-z]*|enum[a-z]+)\\s+)*class\\s"))

((class_declaration
  name: (identifier) @name) @definition.interface
  (#match? @definition.interface "^(@[A-Za-z_.]+(\\([^)]*\\))?\\s+|[a-z]+\\s+)*interface\\s"))

((class_declaration
  (modifiers (class_modifier) @_modifier)
  name: (identifier) @name) @definition.enum
  (#eq? @_modifier "enum"))

(object_declaration
  name: (identifier) @name) @definition.class

(enum_entry
  (identifier) @name) @definition.constant

(function_declaration
  name: (identifier) @name) @definition.function

(type_alias
  type: (identifier) @name) @definition.type

; Top-level properties and `const val`s (a class's other properties are bindings, in names.scm).
(source_file
  (property_declaration
    (variable_declaration
      (identifier) @name)) @definition.constant)

((property_declaration
  (modifiers (property_modifier) @_modifier)
  (variable_declaration
    (identifier) @name)) @definition.constant
  (#eq? @_modifier "const"))

; A receiver is one of the expressions listed, not `(_)`, which in tack's matcher also matches
; an ERROR node (tree-sitter's wildcard does not).
; References, most specific first: a capitalised call through a receiver (a nested class's
; constructor: `Cart.Line()`), a call through a receiver, a bare call (a function's or a
; class's: `Cart(owner)`), an import's last name, a base type, a type, a member access, any
; other name.
((call_expression
  (navigation_expression
    [(identifier) (navigation_expression) (call_expression) (this_expression) (super_expression) (parenthesized_expression) (index_expression) (string_literal)]
    (identifier) @name @reference.call))
  (#match? @name "^[A-Z]"))

(call_expression
  (navigation_expression
    [(identifier) (navigation_expression) (call_expression) (this_expression) (super_expression) (parenthesized_expression) (index_expression) (string_literal)]
    (identifier) @name @reference.method))

(call_expression
  (identifier) @name @reference.call)

(import
  (qualified_identifier
    (identifier) @name @reference.import))

(delegation_specifier
  (constructor_invocation
    (user_type
      (identifier) @name @reference.inheritance)))

(delegation_specifier
  (user_type
    (identifier) @name @reference.inheritance))

(user_type
  (identifier) @name @reference.type)

(navigation_expression
  [(identifier) (navigation_expression) (call_expression) (this_expression) (super_expression) (parenthesized_expression) (index_expression) (string_literal)]
  (identifier) @name @reference.attribute)

(identifier) @name @reference.name
