; Definitions. Functions inside impl and trait bodies come out as functions; the extractor
; names them methods and qualifies them with their type or trait.
(struct_item
  name: (type_identifier) @name) @definition.class

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.class

(type_item
  name: (type_identifier) @name) @definition.type

(trait_item
  name: (type_identifier) @name) @definition.interface

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(mod_item
  name: (identifier) @name) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.constant

; References, most specific first. One identifier can match several patterns; the extractor
; keeps the most specific kind: call, method call, implementation, type, attribute, then any
; other name.
(call_expression
  function: (identifier) @name @reference.call)

(call_expression
  function: (field_expression
    field: (field_identifier) @name @reference.method))

(call_expression
  function: (scoped_identifier
    name: (identifier) @name @reference.call))

(call_expression
  function: (generic_function
    function: (identifier) @name @reference.call))

(call_expression
  function: (generic_function
    function: (scoped_identifier
      name: (identifier) @name @reference.call)))

(call_expression
  function: (generic_function
    function: (field_expression
      field: (field_identifier) @name @reference.method)))

(macro_invocation
  macro: (identifier) @name @reference.call)

(macro_invocation
  macro: (scoped_identifier
    name: (identifier) @name @reference.call))

(impl_item
  trait: (type_identifier) @name @reference.implementation)

(impl_item
  trait: (scoped_type_identifier
    name: (type_identifier) @name @reference.implementation))

(impl_item
  trait: (generic_type
    type: (type_identifier) @name @reference.implementation))

; A path segment (`geo::distance`, `shapes::Shape`) names a module or type, as an import does.
(scoped_identifier
  path: (identifier) @name @reference.import)

(scoped_type_identifier
  path: (identifier) @name @reference.import)

(type_identifier) @name @reference.type

(field_expression
  field: (field_identifier) @name @reference.attribute)

(identifier) @name @reference.name
