; Definitions. Nested types and members are qualified by the types around them (`Cart.Line`);
; a namespace is no definition (it is the file's package, read from names.scm's imports). A
; constructor is a method named after its type; a property, a constant (it is read and assigned
; as a value, never called), as are `const` fields, enum members and a record's positional
; parameters.
(class_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.class

(record_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.method

(local_function_statement
  name: (identifier) @name) @definition.function

(property_declaration
  name: (identifier) @name) @definition.constant

(enum_member_declaration
  name: (identifier) @name) @definition.constant

(record_declaration
  (parameter_list
    (parameter
      name: (identifier) @name) @definition.constant))

((field_declaration
  (modifier) @_modifier
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.constant
  (#eq? @_modifier "const"))

; References, most specific first: a method call (through an object or bare, generic or not),
; `new`, a base type, a type, a member access, any other name.
(invocation_expression
  function: (member_access_expression
    name: (identifier) @name @reference.method))

(invocation_expression
  function: (member_access_expression
    name: (generic_name (identifier) @name @reference.method)))

(invocation_expression
  function: (conditional_access_expression
    (member_binding_expression
      name: (identifier) @name @reference.method)))

(invocation_expression
  function: (identifier) @name @reference.call)

(invocation_expression
  function: (generic_name (identifier) @name @reference.call))

(object_creation_expression
  type: (identifier) @name @reference.call)

(object_creation_expression
  type: (generic_name (identifier) @name @reference.call))

(object_creation_expression
  type: (qualified_name
    name: (identifier) @name @reference.call))

(base_list
  (identifier) @name @reference.inheritance)

(base_list
  (generic_name (identifier) @name @reference.inheritance))

(base_list
  (qualified_name
    name: (identifier) @name @reference.inheritance))

(base_list
  (primary_constructor_base_type
    type: (identifier) @name @reference.inheritance))

(variable_declaration
  type: (identifier) @name @reference.type)

(parameter
  type: (identifier) @name @reference.type)

(method_declaration
  returns: (identifier) @name @reference.type)

(property_declaration
  type: (identifier) @name @reference.type)

(generic_name (identifier) @name @reference.type)

(qualified_name
  name: (identifier) @name @reference.type)

(type_argument_list (identifier) @name @reference.type)

(member_access_expression
  name: (identifier) @name @reference.attribute)

(member_binding_expression
  name: (identifier) @name @reference.attribute)

(identifier) @name @reference.name
