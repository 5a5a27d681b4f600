; What name resolution needs besides definitions and references: the scopes names live in,
; the names each scope binds (with a type hint when one is evident), `use` declarations and
; impl blocks. The extractor reads the identifiers out of each captured binding pattern.

; Scopes. The file is the implicit outermost one; an inline module is a scope of its own.
(function_item) @scope
(closure_expression) @scope
(block) @scope
(mod_item body: (_)) @scope
; A struct's body holds its fields.
(struct_item body: (field_declaration_list)) @scope
; A pattern's names live in its arm, its `if let`, its loop.
(match_arm) @scope
(if_expression) @scope
(while_expression) @scope
(for_expression) @scope

; Parameters, with their type as a hint; `self` is the impl's type.
(parameter pattern: (_) @local.param type: (_) @local.hint)
(self_parameter) @local.self
(closure_parameters (_) @local.param)

; `let`: `let c: Circle`, `let c = Circle::new(…)` and `let c = Circle { … }` make the type evident.
(let_declaration pattern: (_) @local.let)
(let_declaration pattern: (_) @local.let type: (_) @local.hint)
(let_declaration
  pattern: (_) @local.let
  value: (call_expression function: [(identifier) (scoped_identifier)] @local.hint.call))
(let_declaration
  pattern: (_) @local.let
  value: (struct_expression name: (_) @local.hint))

; A struct's fields with their types: `self.shape.area()` is `Circle::area` when the struct
; declares `shape: Circle`.
(field_declaration name: (field_identifier) @local.field type: (_) @local.hint)

; Loops and patterns.
(for_expression pattern: (_) @local.loop)
(let_condition pattern: (_) @local.pattern)
(match_pattern) @local.pattern

; `use` and `extern crate`, decoded by the extractor (their spans also mark which names are
; imports).
(use_declaration) @import
(extern_crate_declaration) @import

; What stands before a name: the path of `geo::name`, the receiver of `self.name`.
(scoped_identifier path: (_) @qualifier name: (identifier) @qualified)
(scoped_type_identifier path: (_) @qualifier name: (type_identifier) @qualified)
(field_expression value: (_) @qualifier field: (field_identifier) @qualified)

; Impl blocks: which type (and trait) their items belong to.
(impl_item) @impl
