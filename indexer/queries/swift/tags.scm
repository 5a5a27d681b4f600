; Definitions. Classes, structs and actors are classes, an enum (its body an `enum_class_body`)
; an enum, a protocol an interface. An extension (`extension Cart { … }`, its name a
; `user_type`) is a class of the extended type's name, so its members are qualified and found
; as the type's (the shared scope gathers every same-named type of a module); it binds no name.
; Functions in a type's body are methods; an initializer is no definition (its name is a
; keyword): a call of `Cart(…)` means the class.
(class_declaration
  name: (type_identifier) @name
  body: (class_body)) @definition.class

(class_declaration
  name: (type_identifier) @name
  body: (enum_class_body)) @definition.enum

(class_declaration
  name: (user_type
    (type_identifier) @name)) @definition.class

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

; A computed property is code run on each read: a method (a function at the top level).
(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)
  computed_value: (computed_property)) @definition.function

; Constants: `static let` in a type, `let` of the file itself, and an enum's cases.
((property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)) @definition.constant
  (#match? @definition.constant "^([^=]*[ \t\n])?static[ \t\n]+([^=]*[ \t\n])?let[ \t\n]"))

((property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)) @definition.constant
  (#match? @definition.constant "^([^=]*[ \t\n])?let[ \t\n]")
  (#top-level? @definition.constant))

(enum_entry
  name: (simple_identifier) @name) @definition.constant

; References, most specific first: a call through a receiver, a bare call (of a function, a
; method of the type around it, or a type: `Cart(…)`), a base type or protocol, a type, a
; member read through a receiver, any other name.
(call_expression
  (navigation_expression
    suffix: (navigation_suffix
      suffix: (simple_identifier) @name @reference.method)))

(call_expression
  (simple_identifier) @name @reference.call)

; tree-sitter-swift 0.7 reads `a + f()` as `(a + f)()`: the call's callee is then the operator's
; right operand.
(call_expression
  [(additive_expression
     rhs: (navigation_expression
       suffix: (navigation_suffix
         suffix: (simple_identifier) @name @reference.method)))
   (multiplicative_expression
     rhs: (navigation_expression
       suffix: (navigation_suffix
         suffix: (simple_identifier) @name @reference.method)))
   (comparison_expression
     rhs: (navigation_expression
       suffix: (navigation_suffix
         suffix: (simple_identifier) @name @reference.method)))
   (equality_expression
     rhs: (navigation_expression
       suffix: (navigation_suffix
         suffix: (simple_identifier) @name @reference.method)))])

(call_expression
  [(additive_expression rhs: (simple_identifier) @name @reference.call)
   (multiplicative_expression rhs: (simple_identifier) @name @reference.call)
   (comparison_expression rhs: (simple_identifier) @name @reference.call)
   (equality_expression rhs: (simple_identifier) @name @reference.call)])

(inheritance_specifier
  inherits_from: (user_type
    (type_identifier) @name @reference.inheritance))

(type_identifier) @name @reference.type

(navigation_expression
  suffix: (navigation_suffix
    suffix: (simple_identifier) @name @reference.attribute))

(simple_identifier) @name @reference.name
