; What name resolution needs besides definitions and references: the scopes names live in,
; the names each scope binds (with a type hint when one is evident), import statements and
; `__all__`. The extractor reads the identifiers out of each captured binding pattern.

; Scopes. The module is the implicit outermost one.
(function_definition) @scope
(class_definition) @scope
(lambda) @scope
(list_comprehension) @scope
(set_comprehension) @scope
(dictionary_comprehension) @scope
(generator_expression) @scope

; Parameters, with their annotation as a hint.
(parameters (identifier) @local.param)
(lambda_parameters (identifier) @local.param)
(typed_parameter (identifier) @local.param type: (type) @local.hint)
(typed_parameter (list_splat_pattern (identifier) @local.param))
(typed_parameter (dictionary_splat_pattern (identifier) @local.param))
(default_parameter name: (identifier) @local.param)
(typed_default_parameter name: (identifier) @local.param type: (type) @local.hint)
(list_splat_pattern (identifier) @local.param)
(dictionary_splat_pattern (identifier) @local.param)

; Assignments: `x = Cart()` and `x: Cart = …` hint an instance of what `Cart` names, `x = other`
; makes `x` another name for `other`.
(assignment left: (_) @local.assign)
(assignment left: (identifier) @local.assign type: (type) @local.hint)
(assignment
  left: (identifier) @local.assign
  right: (call function: [(identifier) (attribute)] @local.hint.call))
(assignment left: (identifier) @local.assign right: [(identifier) (attribute)] @local.hint.alias)
(augmented_assignment left: (identifier) @local.assign)
(named_expression name: (identifier) @local.assign)

; Loops, comprehensions, `with … as` and `except … as` (both `as_pattern_target`).
(for_statement left: (_) @local.loop)
(for_in_clause left: (_) @local.loop)
(as_pattern_target) @local.with

; `global x` and `nonlocal x` send a name to an outer scope.
(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.nonlocal)

; Attributes set through the receiver (`self.items = []`) belong to the class; `self.cart = cart`
; makes the attribute another name for what `cart` names where it is assigned (an annotated
; parameter).
(assignment
  left: (attribute object: (identifier) @local.receiver attribute: (identifier) @local.attribute))
(assignment
  left: (attribute object: (identifier) @local.receiver attribute: (identifier) @local.attribute)
  type: (type) @local.hint)
(assignment
  left: (attribute object: (identifier) @local.receiver attribute: (identifier) @local.attribute)
  right: (call function: [(identifier) (attribute)] @local.hint.call))
(assignment
  left: (attribute object: (identifier) @local.receiver attribute: (identifier) @local.attribute)
  right: [(identifier) (attribute)] @local.hint.alias)

; Imports, decoded by the extractor (their spans also mark which names are imports).
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; What stands before an attribute: `a.b` before `name` in `a.b.name`; the function whose
; parameter a keyword argument names.
(attribute object: (_) @qualifier attribute: (identifier) @qualified)
(call
  function: (_) @qualifier
  arguments: (argument_list (keyword_argument name: (identifier) @qualified.argument)))

; `__all__ = [...]` lists what `from module import *` brings.
((expression_statement
  (assignment
    left: (identifier) @_all
    right: [(list) (tuple)] @exports) @_assignment)
  (#eq? @_all "__all__")
  (#top-level? @_assignment))
((expression_statement
  (augmented_assignment
    left: (identifier) @_all
    right: [(list) (tuple)] @exports) @_assignment)
  (#eq? @_all "__all__")
  (#top-level? @_assignment))
