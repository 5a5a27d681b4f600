; Definitions. Members are qualified by their type (`App\Shop\Cart` is the file's namespace,
; then `Cart\total`); a trait is a class (it carries methods), an enum's cases are constants.
(class_declaration
  name: (name) @name) @definition.class

(trait_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(enum_declaration
  name: (name) @name) @definition.enum

(method_declaration
  name: (name) @name) @definition.method

(function_definition
  name: (name) @name) @definition.function

(const_element
  (name) @name) @definition.constant

(enum_case
  name: (name) @name) @definition.constant

; References, most specific first: bases (a superclass, an interface, a trait a class uses),
; calls through an object or a class, function calls, `new`, types, imports, then names.
; PHP has no catch-all name pattern: a variable's own name (`$cart`) is read whole.
(base_clause
  (name) @name @reference.inheritance)

(base_clause
  (qualified_name
    (name) @name @reference.inheritance))

(class_interface_clause
  (name) @name @reference.inheritance)

(class_interface_clause
  (qualified_name
    (name) @name @reference.inheritance))

(use_declaration
  (name) @name @reference.inheritance)

(use_declaration
  (qualified_name
    (name) @name @reference.inheritance))

(member_call_expression
  name: (name) @name @reference.method)

(nullsafe_member_call_expression
  name: (name) @name @reference.method)

(scoped_call_expression
  name: (name) @name @reference.method)

(function_call_expression
  function: (name) @name @reference.call)

(function_call_expression
  function: (qualified_name
    (name) @name @reference.call))

(object_creation_expression
  (name) @name @reference.call)

(object_creation_expression
  (qualified_name
    (name) @name @reference.call))

(named_type
  (name) @name @reference.type)

(named_type
  (qualified_name
    (name) @name @reference.type))

(namespace_use_clause
  (name) @name @reference.import)

(namespace_use_clause
  (qualified_name
    (name) @name @reference.import))

(member_access_expression
  name: (name) @name @reference.attribute)

(nullsafe_member_access_expression
  name: (name) @name @reference.attribute)

(scoped_call_expression
  scope: (name) @name @reference.name)

(class_constant_access_expression
  (name) @name @reference.name)

(qualified_name
  (name) @name @reference.name)

(subscript_expression
  (name) @name @reference.name)

(argument
  (name) @name @reference.name)

(binary_expression
  (name) @name @reference.name)

(return_statement
  (name) @name @reference.name)

(assignment_expression
  right: (name) @name @reference.name)

(variable_name) @name @reference.name
