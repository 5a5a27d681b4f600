; Definitions. Nested types and members are qualified by the types around them
; (`Cart.Line.total`); a constructor is a method named after its class.
(class_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(compact_constructor_declaration
  name: (identifier) @name) @definition.method

(enum_constant
  name: (identifier) @name) @definition.constant

; A class's constants: its `static final` fields (other fields are bindings, in names.scm).
((field_declaration
  (modifiers) @_modifiers
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant
  (#match? @_modifiers "\\bstatic\\b")
  (#match? @_modifiers "\\bfinal\\b"))

; References, most specific first: a method call (through an object or bare), `new`, an
; import's last name, a base class or interface, a type, a field, any other name.
(method_invocation
  object: (_)
  name: (identifier) @name @reference.method)

(method_invocation
  !object
  name: (identifier) @name @reference.call)

(object_creation_expression
  type: (type_identifier) @name @reference.call)

(object_creation_expression
  type: (generic_type (type_identifier) @name @reference.call))

(import_declaration
  (scoped_identifier
    name: (identifier) @name @reference.import))

(superclass
  (type_identifier) @name @reference.inheritance)

(superclass
  (generic_type (type_identifier) @name @reference.inheritance))

(super_interfaces
  (type_list (type_identifier) @name @reference.inheritance))

(super_interfaces
  (type_list (generic_type (type_identifier) @name @reference.inheritance)))

(extends_interfaces
  (type_list (type_identifier) @name @reference.inheritance))

(extends_interfaces
  (type_list (generic_type (type_identifier) @name @reference.inheritance)))

(method_reference
  (identifier) @name @reference.method)

(type_identifier) @name @reference.type

(field_access
  field: (identifier) @name @reference.attribute)

(identifier) @name @reference.name
