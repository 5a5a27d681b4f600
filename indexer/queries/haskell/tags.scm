; Definitions and references.
;
; Definitions. A module's header (`module Shop.Cart (…) where`) is the module `Cart` in `Shop`
; (the extractor cuts the path). A top-level function is its equations (`add x c = …`; the
; equations of one name are one definition, the type signature above them its signature line);
; a binding without parameters is a constant when its value is a literal, else a function.
; `data`, `newtype` and `type` make types (a `data` type with record fields or several
; constructors a class), their constructors and record fields are inside them; a type class
; is an interface whose signatures are its methods; an instance's equations are methods.
(header module: (module) @name) @definition.module

(declarations (function name: (variable) @name) @definition.function)
(declarations
  (bind
    name: (variable) @name
    match: (match expression: (literal))) @definition.constant)
(declarations
  (bind
    name: (variable) @name
    match: (match
      expression: [(apply) (do) (variable) (qualified) (lambda) (infix) (parens) (record)
                   (list) (tuple) (case) (conditional) (let_in) (constructor) (left_section)
                   (right_section) (list_comprehension) (arithmetic_sequence) (negation)
                   (lambda_case) (projection)])) @definition.function)
(declarations (bind name: (variable) @name match: (match guards: (_))) @definition.function)

(data_type name: (name) @name) @definition.class
(newtype name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(data_constructor constructor: (prefix name: (constructor) @name) @definition.function)
(data_constructor constructor: (record name: (constructor) @name) @definition.function)
(newtype_constructor name: (constructor) @name) @definition.function
(gadt_constructor name: (constructor) @name) @definition.function
(field name: (field_name (variable) @name)) @definition.function

(class name: (name) @name) @definition.interface
(class_declarations (signature name: (variable) @name) @definition.method)
(class_declarations (function name: (variable) @name) @definition.method)
(class_declarations (bind name: (variable) @name) @definition.method)
(instance_declarations (function name: (variable) @name) @definition.method)
(instance_declarations (bind name: (variable) @name) @definition.method)

; References: a function applied (`total c`, `P.applyDiscount x`, the latter with its module as
; qualifier, `f $ x`, or put between backticks: ``a `plus` b``), a name (a variable, a
; constructor; a type's name is a type reference), a name in an import list (with its module)
; and in an export list.
(apply function: (variable) @name @reference.call)
(apply function: (qualified id: (variable) @name @reference.call))
(infix left_operand: (variable) @name @reference.call operator: (operator) @_op
  (#eq? @_op "$"))
(infix_id (variable) @name @reference.call)
(infix_id (qualified id: (variable) @name @reference.call))
(import_name variable: (variable) @name @reference.import)
(import_name type: (name) @name @reference.import)
(qualified id: (_) @name @reference.name)
(constructor) @name @reference.name
(name) @name @reference.type
(variable) @name @reference.name
