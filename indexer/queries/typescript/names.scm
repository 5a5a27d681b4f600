; TypeScript's scopes, parameters and annotations beyond JavaScript's; `queries/ecma/names.scm`
; has the rest of what resolution needs.
(abstract_class_declaration) @scope
(internal_module) @scope

; Parameters and variables, with their annotated type as a hint.
(required_parameter pattern: (_) @local.param)
(required_parameter pattern: (identifier) @local.param type: (type_annotation (_) @local.hint))
(optional_parameter pattern: (_) @local.param)
(optional_parameter pattern: (identifier) @local.param type: (type_annotation (_) @local.hint))
(variable_declarator
  name: (identifier) @local.let
  type: (type_annotation (_) @local.hint))

; A class's properties with their types: `this.shape.area()` is `Circle.area` when the class
; declares `shape: Circle`.
(public_field_definition
  name: (property_identifier) @local.field
  type: (type_annotation (_) @local.hint))
