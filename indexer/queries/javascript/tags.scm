; JavaScript's own definitions and references; `queries/ecma/tags.scm` has the shared ones.
(class_declaration
  name: (identifier) @name) @definition.class

(class_heritage
  (identifier) @name @reference.inheritance)

; CommonJS: `exports.f = function …` and `module.exports.f = …` define `f` (a module's member);
; `C.prototype.m = function …` defines `C`'s method `m`.
((expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_exports
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function)]) @definition.function) @_statement
  (#eq? @_exports "exports")
  (#top-level? @_statement))

((expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @_module
        property: (property_identifier) @_exports)
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function)]) @definition.function) @_statement
  (#eq? @_module "module")
  (#eq? @_exports "exports")
  (#top-level? @_statement))

((expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier)
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(function_expression) (arrow_function)]) @definition.method) @_statement
  (#eq? @_prototype "prototype")
  (#top-level? @_statement))
