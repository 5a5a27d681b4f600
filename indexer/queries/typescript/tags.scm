; TypeScript's own definitions and references; `queries/ecma/tags.scm` has the shared ones.
(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(function_signature
  name: (identifier) @name) @definition.function

(method_signature
  name: (property_identifier) @name) @definition.method

(abstract_method_signature
  name: (property_identifier) @name) @definition.method

(internal_module
  name: (identifier) @name) @definition.module

; Base classes, interfaces and types.
(extends_clause
  value: (identifier) @name @reference.inheritance)

(implements_clause
  (type_identifier) @name @reference.inheritance)

(extends_type_clause
  (type_identifier) @name @reference.inheritance)

(type_identifier) @name @reference.type
